// Claim T4 (soft version): two previous-token heads of finite alpha compose into a two-back head.
// The virtual pattern of layer 2 reading layer 1's output is A2 A1; with both layers seed 001's
// previous-token head (d = 64, base 10000) over 20 tokens, its two-back mass (A2 A1)(i, i - 2) is
// certified for every row i >= 2, at alpha = 1, 10, 100, and shown to be at least the product of
// the single-head bounds m(alpha, 20)^2 of R6.
// Kind: C (certified interval enclosures at compile time).
//
// (A2 A1)(i, i-2) = sum_j A2(i, j) A1(j, i-2) >= A2(i, i-1) A1(i-1, i-2) >= m^2: every term is
// non-negative. The patterns are computed, not bounded: causal_softmax over the scores
// alpha sum_l cos((j - i + 1) theta_l) (previous_token_profile; R4 proves these are the head's
// scores), in certified intervals, then one 20 x 20 product.
#include <cstddef>

#include "qkov/circuits/attention_pattern.hpp"
#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/previous_token_bounds.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/scalar/certified.hpp"
#include "qkov/scalar/interval.hpp"
#include "qkov/scalar/interval_functions.hpp"
#include "certified_seed_setting.hpp"
#include "report/certified_report.hpp"

namespace {
using namespace qkov;
using namespace qkov::seed_setting;
constexpr std::size_t N = 20;

struct two_back {
    certified mass;       ///< min over rows i >= 2 of (A A)(i, i - 2)
    certified off_mass;   ///< max over rows of 1 - (A A)(i, i - 2), as the sum of the other entries
};

/// previous_token_profile at offset 1 - t for t = i - j = 0 .. N-1: a score depends on i - j only.
struct profile_table {
    interval at[N];
    constexpr profile_table() : at{}
    {
        for (std::size_t t = 0; t < N; ++t) at[t] = previous_token_profile<L>(angles, 1 - static_cast<std::int64_t>(t));
    }
};
constexpr profile_table profiles{};

constexpr two_back composed_two_back_mass(double alpha_value)
{
    const interval alpha(alpha_value);
    const auto pattern = causal_softmax<interval, N>(
        [&](std::size_t i, std::size_t j) { return alpha * profiles.at[i - j]; },
        [&](std::size_t) { return alpha * interval(d / 2); });  // the previous token's score, the row maximum
    const auto virtual_pattern = pattern * pattern;
    double mass_lo = 1.0, mass_hi = 1.0, off_lo = 0.0, off_hi = 0.0;
    for (std::size_t i = 2; i < N; ++i) {
        const interval m = virtual_pattern(i, i - 2);
        interval off(0.0);
        for (std::size_t k = 0; k <= i; ++k)
            if (k != i - 2) off += virtual_pattern(i, k);
        mass_lo = m.lo() < mass_lo ? m.lo() : mass_lo;
        mass_hi = m.hi() < mass_hi ? m.hi() : mass_hi;
        off_lo = off.lo() > off_lo ? off.lo() : off_lo;
        off_hi = off.hi() > off_hi ? off.hi() : off_hi;
    }
    return {certified(mass_lo, mass_hi), certified(off_lo, off_hi)};
}

/// m(alpha, N)^2 from R6's worst-row bound.
constexpr certified product_of_single_head_bounds(double alpha_value)
{
    const interval m = certified_previous_token_mass<L>(angles, interval(alpha_value), N).mass.enclosure();
    return certified(m * m);
}

constexpr two_back alpha1 = composed_two_back_mass(1.0);
constexpr two_back alpha10 = composed_two_back_mass(10.0);
constexpr two_back alpha100 = composed_two_back_mass(100.0);
constexpr certified product1 = product_of_single_head_bounds(1.0);
constexpr certified product10 = product_of_single_head_bounds(10.0);

static_assert(alpha1.mass.exceeds(product1.upper) == certainty::holds,
              "T4: alpha = 1: the composed two-back mass exceeds the product of the single-head bounds");
static_assert(alpha1.mass.exceeds(0.42) == certainty::holds, "T4: alpha = 1: two-back mass > 0.42 in every row");
static_assert(alpha10.mass.exceeds(product10.upper) == certainty::holds && alpha10.off_mass.is_below(8e-5) == certainty::holds,
              "T4: alpha = 10: two-back mass > 1 - 8e-5, at least the product bound");
static_assert(alpha100.off_mass.is_below(4e-47) == certainty::holds, "T4: alpha = 100: two-back mass > 1 - 4e-47");

QKOV_CERTIFIED_REPORT(T4, "two-back mass of two composed previous-token heads, min over rows, alpha = 1, 20 tokens", alpha1.mass);
QKOV_CERTIFIED_REPORT(T4, "product of the single-head bounds m(1, 20)^2", product1);
QKOV_CERTIFIED_REPORT(T4, "1 - two-back mass, max over rows, alpha = 10", alpha10.off_mass);
QKOV_CERTIFIED_REPORT(T4, "1 - two-back mass, max over rows, alpha = 100", alpha100.off_mass);

} // namespace
