// Claim R9 (the identity): with W_Q = W_K = (diag(0, ..., 0, 1, 1) | 0) and x_i = x,
// q_m^T k_n = cos((n - m) theta_{d/2}) (x_{d-2}^2 + x_{d-1}^2) (0-based; the seed's x_{d-1}, x_d).
// Kind: P (symbolic m, n, angles, x at d = 8, 64, 128). Which value theta_{d/2} takes under the
// seed's schedule and the standard one is a numeric claim (C), not part of this identity.
#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/matrix/symbolic_entries.hpp"
#include "qkov/scalar/trig_poly.hpp"

namespace {
using namespace qkov;
using P = trig_poly<>;

/// q_m^T k_n == cos((n - m) theta_pair)(x_{d-2}^2 + x_{d-1}^2): the claim with pair = d/2 - 1 (the last).
template <std::size_t d>
constexpr bool last_pair_identity(std::uint16_t pair = d / 2 - 1)
{
    constexpr std::size_t D = d + 2;
    const auto m = position(0), n = position(1);
    const auto w = coordinate_reader<P, d, D>(d - 2, 0);  // (diag(0, ..., 0, 1, 1) | 0)
    const auto x = symbolic_entries<P, D, 1>(0);
    const P expected = P::cos(pair, n - m) * (x(d - 2, 0) * x(d - 2, 0) + x(d - 1, 0) * x(d - 1, 0));
    return rotary_score<interleaved_layout(d)>(symbolic_angles<P>{}, w, x, m, w, x, n) == expected;
}

static_assert(last_pair_identity<8>(), "R9: q_m^T k_n = cos((n-m) theta_{d/2})(x_{d-2}^2 + x_{d-1}^2), d = 8");
static_assert(last_pair_identity<64>(), "R9: the same at d = 64");
static_assert(last_pair_identity<128>(), "R9: the same at d = 128");

} // namespace
