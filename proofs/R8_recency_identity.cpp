// Claim R8 (the identity): with x_i = x for every token and W_Q = W_K = (I_d | 0),
// q_m^T k_n = sum_i cos((n - m) theta_i) (x_{2i}^2 + x_{2i+1}^2) for all m, n, theta, x (0-based
// pairs; seed 000 writes x_{2i-1}, x_{2i} with 1-based i).
// Kind: P (symbolic m, n, angles and entries of x, at d = 8, 64, 128). The maximum at n = m
// (the recency bias) is an inequality: a certified claim (C).
#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/matrix/symbolic_entries.hpp"
#include "qkov/scalar/trig_poly.hpp"

namespace {
using namespace qkov;
using P = trig_poly<>;

/// q_m^T k_n == sum_i cos((n - sign_of_m m) theta_i)(x_{2i}^2 + x_{2i+1}^2): the claim with sign_of_m = 1.
template <std::size_t d>
constexpr bool recency_identity(std::int32_t sign_of_m = 1)
{
    constexpr std::size_t D = d + 2;
    const auto m = position(0), n = position(1);
    const auto w = coordinate_reader<P, d, D>(0, 0);  // (I_d | 0)
    const auto x = symbolic_entries<P, D, 1>(0);      // the same token everywhere
    P expected;
    for (std::size_t i = 0; i < d / 2; ++i)
        expected += P::cos(static_cast<std::uint16_t>(i), n - sign_of_m * m) * (x(2 * i, 0) * x(2 * i, 0) + x(2 * i + 1, 0) * x(2 * i + 1, 0));
    return rotary_score<interleaved_layout(d)>(symbolic_angles<P>{}, w, x, m, w, x, n) == expected;
}

static_assert(recency_identity<8>(), "R8: q_m^T k_n = sum_i cos((n-m) theta_i)(x_{2i}^2 + x_{2i+1}^2), d = 8");
static_assert(recency_identity<64>(), "R8: the same at d = 64");
static_assert(recency_identity<128>(), "R8: the same at d = 128");

} // namespace
