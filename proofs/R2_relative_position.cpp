// Claim R2: R_m^T R_n = R_{n-m} for all integer positions m, n and all angles theta.
// Kind: P (symbolic m, n, theta_l) at d = 8, 64, 128, for both pairings and partial rotary.
//
// Layouts: interleaved pairs (2l, 2l+1) as in the seeds; rotate_half pairs (l, l + d/2) as in
// Hugging Face Llama and GPT-NeoX; partial rotary (only the first rotary_dim coordinates turn,
// as in Pythia). The block route is checked at every size, the dense d x d product at d = 8.
// The consequence for scores, q_m^T k_n = x_m^T W_q^T R_{n-m} W_k x_n: R2_score_bilinear_form.cpp.
#include "qkov/circuits/rope.hpp"
#include "qkov/scalar/trig_poly.hpp"

namespace {
using namespace qkov;
using P = trig_poly<>;

/// R_m^T R_n == R_{n - sign_of_m * m}: the claim with sign_of_m = 1 (false twins vary it).
template <rope_layout L>
constexpr bool relative_position_blocks(std::int32_t sign_of_m = 1)
{
    using R = rope_rotation<P, L>;
    const symbolic_angles<P> angles;
    const auto m = position(0), n = position(1);
    return transpose(R::at(angles, m)) * R::at(angles, n) == R::at(angles, n - sign_of_m * m);
}

template <rope_layout L>
constexpr bool relative_position_dense()
{
    using R = rope_rotation<P, L>;
    const symbolic_angles<P> angles;
    const auto m = position(0), n = position(1);
    return transpose(R::at(angles, m).dense()) * R::at(angles, n).dense() == R::at(angles, n - m).dense();
}

static_assert(relative_position_blocks<interleaved_layout(8)>(), "R2: R_m^T R_n = R_{n-m}, d = 8");
static_assert(relative_position_blocks<interleaved_layout(64)>(), "R2: R_m^T R_n = R_{n-m}, d = 64");
static_assert(relative_position_blocks<interleaved_layout(128)>(), "R2: R_m^T R_n = R_{n-m}, d = 128");
static_assert(relative_position_blocks<rope_layout{64, 64, rope_pairing::rotate_half}>(), "R2, rotate_half pairing, d = 64");
static_assert(relative_position_blocks<rope_layout{64, 32, rope_pairing::rotate_half}>(), "R2, partial rotary 32 of 64");

static_assert(relative_position_dense<interleaved_layout(8)>(), "R2, dense 8 x 8 product, interleaved");
static_assert(relative_position_dense<rope_layout{8, 8, rope_pairing::rotate_half}>(), "R2, dense 8 x 8 product, rotate_half");
static_assert(relative_position_dense<rope_layout{8, 4, rope_pairing::rotate_half}>(), "R2, dense 8 x 8 product, partial rotary 4 of 8");

} // namespace
