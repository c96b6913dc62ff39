// certified: a real number proved to lie in [lower, upper]. Proofs static_assert on its bounds
// (and only through comparisons that hold); programs print it (certified_io.hpp). It is the
// result of a certified computation, not a value to compute with: for that, use the interval.
#pragma once

#include <limits>

#include "qkov/scalar/interval.hpp"

namespace qkov {

struct certified {
    double lower;
    double upper;

    /// Nothing known yet: (-inf, +inf) holds every real number, so a default is never a claim.
    constexpr certified() : lower(-std::numeric_limits<double>::infinity()), upper(std::numeric_limits<double>::infinity()) {}
    /// [lower, upper] from numbers an interval accepts: exact for doubles, rounded outwards for
    /// integers beyond 2^53 and long doubles (a narrowed bound would claim a different range).
    template <interval_source A, interval_source B>
    constexpr certified(A lower_, B upper_) : certified(interval(lower_, upper_))
    {
    }
    constexpr explicit certified(const interval& enclosure) : lower(enclosure.lo()), upper(enclosure.hi()) {}

    [[nodiscard]] constexpr interval enclosure() const { return {lower, upper}; }

    // The thresholds below are taken exactly (doubles, floats) or enclosed (integers, long double):
    // "at most 0.1L" must not be decided against the double nearest 0.1, which is above 0.1L.

    /// The value exceeds x: holds when even the lower bound does, fails when even the upper bound does not.
    template <interval_source X>
    [[nodiscard]] constexpr certainty exceeds(X x_in) const
    {
        const interval x(x_in);
        if (lower > x.hi()) return certainty::holds;
        if (upper <= x.lo()) return certainty::fails;
        return certainty::undecided;
    }
    /// The value is at most x: holds when the upper bound is, fails when the lower bound exceeds x.
    template <interval_source X>
    [[nodiscard]] constexpr certainty is_at_most(X x_in) const
    {
        const interval x(x_in);
        if (upper <= x.lo()) return certainty::holds;
        if (lower > x.hi()) return certainty::fails;
        return certainty::undecided;
    }
    /// The value is below x, likewise.
    template <interval_source X>
    [[nodiscard]] constexpr certainty is_below(X x_in) const
    {
        const interval x(x_in);
        if (upper < x.lo()) return certainty::holds;
        if (lower >= x.hi()) return certainty::fails;
        return certainty::undecided;
    }
};

} // namespace qkov
