// Claim R5: for seed 001's previous-token head at d = 64, base 10000, the previous token scores
// strictly highest: q_{n+1}^T k_m < (d/2) alpha for every m < n with n - m <= N (N = 20 here).
// Kind: C (certified interval enclosures at compile time).
//
// The head, the rotations and the schedule are the library's own (previous_token_head,
// rotary_score, standard_theta), instantiated with certified intervals. Scores depend on the
// positions only through n - m (R4, proved for all m, n), so n = k, m = 0 covers every pair with
// n - m = k. The gap (d/2) alpha - q_{k+1}^T k_0 is enclosed for alpha = 1 (scores scale with
// alpha > 0); a proof step uses only comparisons that *hold*, never undecided ones.
#include <cstddef>
#include <cstdint>

#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/scalar/interval.hpp"
#include "qkov/scalar/interval_functions.hpp"

namespace {
using namespace qkov;
constexpr std::size_t d = 64;
constexpr std::size_t D = 2;  // x = (1, x_1): W_k reads only the constant coordinate
constexpr rope_layout L = interleaved_layout(d);

/// The head with the standard schedule (base 10000), in certified intervals, alpha = 1.
struct certified_head {
    numeric_angles<interval, d / 2> angles{standard_theta<interval, d / 2>(10000.0)};
    qk_factors<interval, d, D> head = previous_token_head<L, D>(angles, interval(1.0));
    matrix<interval, D, 1> token = matrix<interval, D, 1>::from_rows({{interval(1.0)}, {interval(0.25)}});
};

/// The certified enclosure of (d/2) - q_{k+1}^T k_0.
constexpr interval certified_gap(const certified_head& h, std::int64_t k)
{
    return interval(static_cast<double>(d / 2)) -
           rotary_score<L>(h.angles, h.head.w_q, h.token, k + 1, h.head.w_k, h.token, std::int64_t{0});
}

/// The smallest certified lower bound of the gap over k = 1..window, or -1 if some gap is not
/// certainly positive (then the claim is not proved).
constexpr double certified_min_gap(std::int64_t window)
{
    const certified_head h;
    double smallest = 1e300;
    for (std::int64_t k = 1; k <= window; ++k) {
        const interval g = certified_gap(h, k);
        if (certainly_less(interval(0.0), g) != certainty::holds) return -1.0;
        smallest = g.lo() < smallest ? g.lo() : smallest;
    }
    return smallest;
}

constexpr double min_gap_20 = certified_min_gap(20);
static_assert(min_gap_20 > 0.0, "R5: q_{n+1}^T k_m < (d/2) alpha for 1 <= n - m <= 20 (d = 64, base 10000)");
// The certified gap itself (its smallest lower bound over the window, at n - m = 1) exceeds alpha.
static_assert(min_gap_20 > 1.0, "R5: the certified gap over the window of 20 exceeds alpha");

} // namespace
