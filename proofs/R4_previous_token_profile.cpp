// Claim R4: for seed 001's previous-token head, q_{n+1}^T k_m = alpha sum_l cos((m - n) theta_l)
// for all positions m, n.
// Kind: P (symbolic m, n, alpha, angles, and residual entries, at d = 8, 64, 128).
//
// The whole attention profile of the head is a sum of cosines of the offset m - n: at m = n
// every cosine is 1 (R3); the inequality for m < n is a certified (C) claim, R5.
#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/matrix/symbolic_entries.hpp"
#include "qkov/scalar/trig_poly.hpp"

namespace {
using namespace qkov;
using P = trig_poly<>;
constexpr std::size_t D = 8;

/// q_{n+1}^T k_m == alpha sum_l cos((m - n + shift) theta_l): the claim with shift = 0.
template <std::size_t d>
constexpr bool previous_token_profile(std::int32_t shift = 0)
{
    constexpr rope_layout L = interleaved_layout(d);
    const symbolic_angles<P> angles;
    const auto m = position(0), n = position(1);
    const P alpha = P::variable(0);
    const auto head = previous_token_head<L, D>(angles, alpha);
    auto x_query = symbolic_entries<P, D, 1>(10);
    auto x_key = symbolic_entries<P, D, 1>(20);
    x_query(0, 0) = P(1);
    x_key(0, 0) = P(1);
    P profile;
    for (std::size_t l = 0; l < d / 2; ++l) profile += P::cos(static_cast<std::uint16_t>(l), m - n + shift);
    return rotary_score<L>(angles, head.w_q, x_query, n + 1, head.w_k, x_key, m) == alpha * profile;
}

static_assert(previous_token_profile<8>(), "R4: q_{n+1}^T k_m = alpha sum_l cos((m - n) theta_l), d = 8");
static_assert(previous_token_profile<64>(), "R4: the same at d = 64");
static_assert(previous_token_profile<128>(), "R4: the same at d = 128");

} // namespace
