// Claim R2: q_m^T k_n = x_m^T W_q^T R_{n-m} W_k x_n for every W_q, W_k, x_m, x_n, m, n, theta.
// Kind: P (every entry of W_q, W_k (4 x 6), x_m, x_n is its own real symbol) and X (exact
// rational rotations at given positions).
//
// With q_m = R_m W_q x_m and k_n = R_n W_k x_n (seed 001), the score depends on the positions
// only through n - m. Checked for the interleaved and the rotate_half pairing.
#include "qkov/circuits/rope.hpp"
#include "qkov/matrix/symbolic_entries.hpp"
#include "qkov/scalar/rational.hpp"
#include "qkov/scalar/trig_poly.hpp"

namespace {
using namespace qkov;
using P = trig_poly<>;
constexpr std::size_t d = 4;
constexpr std::size_t D = 6;

/// q_m^T k_n == x_m^T W_q^T R_{sign (n - m)} W_k x_n: the claim with sign = 1.
template <rope_layout L>
constexpr bool score_is_bilinear_in_relative_rotation(std::int32_t sign = 1)
{
    using R = rope_rotation<P, L>;
    const symbolic_angles<P> angles;
    const auto m = position(0), n = position(1);
    std::uint16_t next = 0;
    const auto w_q = symbolic_entries<P, d, D>(next, &next);
    const auto w_k = symbolic_entries<P, d, D>(next, &next);
    const auto x_m = symbolic_entries<P, D, 1>(next, &next);
    const auto x_n = symbolic_entries<P, D, 1>(next, &next);
    const P score = rotary_score<L>(angles, w_q, x_m, m, w_k, x_n, n);
    const P relative = (transpose(x_m) * transpose(w_q) * (R::at(angles, sign * (n - m)) * (w_k * x_n)))(0, 0);
    return score == relative;
}

static_assert(score_is_bilinear_in_relative_rotation<interleaved_layout(d)>(),
              "R2: q_m^T k_n = x_m^T W_q^T R_{n-m} W_k x_n, symbolic W_q, W_k, x (interleaved)");
static_assert(score_is_bilinear_in_relative_rotation<rope_layout{d, d, rope_pairing::rotate_half}>(),
              "R2: q_m^T k_n = x_m^T W_q^T R_{n-m} W_k x_n, symbolic W_q, W_k, x (rotate_half)");

// Exact instances: rotations with rational cosines (Pythagorean triples (3,4,5), (5,12,13),
// (8,15,17), (7,24,25)), at concrete positions, in plain rational arithmetic.
using Q = rational128;
constexpr rational_angles<Q, 4> triples{{{{2, 1}, {3, 2}, {4, 1}, {4, 3}}}};
template <std::int64_t m, std::int64_t n>
constexpr bool relative_rotation_instance()
{
    using R = rope_rotation<Q, interleaved_layout(8)>;
    return transpose(R::at(triples, m)) * R::at(triples, n) == R::at(triples, n - m) &&
           !(R::at(triples, m) == R::at(triples, n));
}
static_assert(relative_rotation_instance<3, 7>() && relative_rotation_instance<-5, 2>() && relative_rotation_instance<11, 4>(),
              "R2: exact rational instances of R_m^T R_n = R_{n-m}");

} // namespace
