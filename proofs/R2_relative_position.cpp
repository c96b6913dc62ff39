// Claim R2: R_m^T R_n = R_{n-m} for all integer positions m, n and all angles theta.
// Kind: P (symbolic m, n, theta_l) at d = 8, 64, 128, interleaved pairs as in the seeds.
//
// rope_rotation multiplies block by block. Dense d x d products, other pairings and partial
// rotary: R2_pairings.cpp. The consequence for scores,
// q_m^T k_n = x_m^T W_q^T R_{n-m} W_k x_n: R2_score_bilinear_form.cpp.
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

/// The same with the dense d x d matrices and the plain matrix product.
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

} // namespace
