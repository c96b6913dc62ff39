// Claim R5: for seed 001's previous-token head at d = 64, base 10000, the previous token scores
// strictly highest: q_{n+1}^T k_m < (d/2) alpha for every m < n with n - m <= N (N = 20 here).
// Kind: C (certified interval enclosures at compile time).
//
// By R4 (proved for all m, n, theta), q_{n+1}^T k_m = alpha sum_l cos((m - n) theta_l), and at
// m = n it is (d/2) alpha (R3). With k = n - m in 1..N (cos is even) the claim is
// gap(k) = d/2 - sum_l cos(k theta_l) > 0 for theta_l = 10000^(-2l/d), l = 0..d/2-1. Each theta_l,
// each cos and each sum is a certified enclosure (scalar/interval_functions.hpp); a proof step
// uses only comparisons that *hold*, never undecided ones.
#include <cstddef>

#include "qkov/scalar/interval.hpp"
#include "qkov/scalar/interval_functions.hpp"

namespace {
using namespace qkov;
constexpr std::size_t d = 64;

/// theta_l = 10000^(-2l/d), certified.
struct schedule {
    interval theta[d / 2];
};
constexpr schedule standard_schedule()
{
    schedule s{};
    for (std::size_t l = 0; l < d / 2; ++l)
        s.theta[l] = qkov::pow(interval(10000.0), interval(-2.0 * static_cast<double>(l)) / interval(static_cast<double>(d)));
    return s;
}

/// The certified enclosure of d/2 - sum_l cos(k theta_l).
constexpr interval gap(const schedule& s, int k)
{
    interval sum(0.0);
    for (std::size_t l = 0; l < d / 2; ++l) sum += qkov::cos(interval(static_cast<double>(k)) * s.theta[l]);
    return interval(static_cast<double>(d / 2)) - sum;
}

/// The smallest certified lower bound of the gap over k = 1..window, or -1 if some gap is not
/// certainly positive (then the claim is not proved).
constexpr double certified_min_gap(int window)
{
    const schedule s = standard_schedule();
    double smallest = 1e300;
    for (int k = 1; k <= window; ++k) {
        const interval g = gap(s, k);
        if (certainly_less(interval(0.0), g) != certainty::holds) return -1.0;
        smallest = g.lo() < smallest ? g.lo() : smallest;
    }
    return smallest;
}

constexpr double min_gap_20 = certified_min_gap(20);
static_assert(min_gap_20 > 0.0, "R5: q_{n+1}^T k_m < (d/2) alpha for 1 <= n - m <= 20 (d = 64, base 10000)");
// The certified gap itself (its smallest lower bound over the window, at k = 1): d/2 - sum_l cos(theta_l) > 0.5.
static_assert(min_gap_20 > 0.5, "R5: the certified gap over the window of 20 exceeds 0.5 alpha");

} // namespace
