// interval: certified enclosures [lo, hi] of real numbers in double precision, usable in
// constant evaluation, for inequalities that cannot be proved with exact arithmetic.
//
// Soundness rests on one assumption: + - * / of doubles are correctly rounded to nearest, in
// constant evaluation (g++ and clang evaluate them so) and at run time (IEEE default rounding;
// qkov's own targets build with -ffp-contract=off, so no fused multiply-add changes a rounding).
// A correctly rounded result is within half an ulp of the exact one, so stepping one ulp
// outwards (next_down / next_up) encloses the exact result. Tested against exact rationals in
// constant evaluation (tests/static/interval_static_tests.cpp) and against 100-digit Boost
// numbers at run time (tests/interval_tests.cpp).
//
// Comparisons are three-valued: holds, fails or undecided (the enclosures overlap). A proof
// may only use `holds`; undecided is never success.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "qkov/scalar/errors.hpp"

namespace qkov {

/// The next double above x (+inf stays +inf); -0 and +0 both step to the smallest subnormal.
constexpr double next_up(double x)
{
    if (x != x) invalid_interval_detected();
    if (x == std::numeric_limits<double>::infinity()) return x;
    if (x == 0.0) return std::numeric_limits<double>::denorm_min();
    const auto bits = std::bit_cast<std::uint64_t>(x);
    return std::bit_cast<double>(x > 0 ? bits + 1 : bits - 1);
}

/// The next double below x (-inf stays -inf).
constexpr double next_down(double x) { return -next_up(-x); }

enum class certainty { holds, fails, undecided };

class interval {
public:
    /// The point interval [x, x]: exact, a double is a real number.
    constexpr interval(double x = 0.0) : lo_(x), hi_(x) { check(); }
    constexpr interval(double lo, double hi) : lo_(lo), hi_(hi) { check(); }

    [[nodiscard]] constexpr double lo() const { return lo_; }
    [[nodiscard]] constexpr double hi() const { return hi_; }
    [[nodiscard]] constexpr double width() const { return hi_ - lo_; }
    [[nodiscard]] constexpr bool contains(double x) const { return lo_ <= x && x <= hi_; }

    friend constexpr interval operator+(const interval& a, const interval& b)
    {
        return {next_down(a.lo_ + b.lo_), next_up(a.hi_ + b.hi_)};
    }
    friend constexpr interval operator-(const interval& a, const interval& b)
    {
        return {next_down(a.lo_ - b.hi_), next_up(a.hi_ - b.lo_)};
    }
    constexpr interval operator-() const { return {-hi_, -lo_}; }  // exact

    friend constexpr interval operator*(const interval& a, const interval& b)
    {
        const double p[4] = {a.lo_ * b.lo_, a.lo_ * b.hi_, a.hi_ * b.lo_, a.hi_ * b.hi_};
        double lo = p[0], hi = p[0];
        for (double v : p) {
            if (v != v) invalid_interval_detected();  // 0 * inf
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        return {next_down(lo), next_up(hi)};
    }
    friend constexpr interval operator/(const interval& a, const interval& b)
    {
        if (b.lo_ <= 0.0 && 0.0 <= b.hi_) interval_division_by_zero_detected();
        const double q[4] = {a.lo_ / b.lo_, a.lo_ / b.hi_, a.hi_ / b.lo_, a.hi_ / b.hi_};
        double lo = q[0], hi = q[0];
        for (double v : q) {
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        return {next_down(lo), next_up(hi)};
    }
    constexpr interval& operator+=(const interval& b) { return *this = *this + b; }
    constexpr interval& operator-=(const interval& b) { return *this = *this - b; }
    constexpr interval& operator*=(const interval& b) { return *this = *this * b; }

    /// Equality of enclosures, not of the reals they enclose (for matrix bookkeeping).
    friend constexpr bool operator==(const interval&, const interval&) = default;

private:
    constexpr void check() const
    {
        if (lo_ != lo_ || hi_ != hi_ || lo_ > hi_) invalid_interval_detected();
    }

    double lo_;
    double hi_;
};

/// a < b for every pair of reals the intervals enclose: holds; for none: fails; else undecided.
constexpr certainty certainly_less(const interval& a, const interval& b)
{
    if (a.hi() < b.lo()) return certainty::holds;
    if (a.lo() >= b.hi()) return certainty::fails;
    return certainty::undecided;
}

/// a <= b likewise.
constexpr certainty certainly_less_equal(const interval& a, const interval& b)
{
    if (a.hi() <= b.lo()) return certainty::holds;
    if (a.lo() > b.hi()) return certainty::fails;
    return certainty::undecided;
}

} // namespace qkov
