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
    constexpr certified(double lower_, double upper_) : lower(lower_), upper(upper_)
    {
        if (lower_ != lower_ || upper_ != upper_ || lower_ > upper_) invalid_interval_detected();
    }
    constexpr explicit certified(const interval& enclosure) : certified(enclosure.lo(), enclosure.hi()) {}

    [[nodiscard]] constexpr interval enclosure() const { return {lower, upper}; }

    /// The value exceeds x: holds when even the lower bound does, fails when even the upper bound does not.
    [[nodiscard]] constexpr certainty exceeds(double x) const
    {
        if (lower > x) return certainty::holds;
        if (upper <= x) return certainty::fails;
        return certainty::undecided;
    }
    /// The value is at most x: holds when the upper bound is, fails when the lower bound exceeds x.
    [[nodiscard]] constexpr certainty is_at_most(double x) const
    {
        if (upper <= x) return certainty::holds;
        if (lower > x) return certainty::fails;
        return certainty::undecided;
    }
    /// The value is below x, likewise.
    [[nodiscard]] constexpr certainty is_below(double x) const
    {
        if (upper < x) return certainty::holds;
        if (lower >= x) return certainty::fails;
        return certainty::undecided;
    }
};

} // namespace qkov
