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

/// q_{n+1}^T k_m == alpha sum_l cos((m - n + shift) theta_l): the claim with shift = 0. The
/// right-hand side is the library's previous_token_profile, which the certified bounds (R5, R6)
/// evaluate in interval arithmetic: this proof is what lets them stand for the head.
template <std::size_t d>
constexpr bool profile_identity_holds(std::int32_t shift = 0)
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
    return rotary_score<L>(angles, head.w_q, x_query, n + 1, head.w_k, x_key, m) ==
           alpha * previous_token_profile<L>(angles, m - n + shift);
}

static_assert(profile_identity_holds<8>(), "R4: q_{n+1}^T k_m = alpha sum_l cos((m - n) theta_l), d = 8");
static_assert(profile_identity_holds<64>(), "R4: the same at d = 64");
static_assert(profile_identity_holds<128>(), "R4: the same at d = 128");

} // namespace
