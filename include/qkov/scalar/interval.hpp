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
#include <concepts>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

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

/// The next double below x (-inf stays -inf). Written out rather than as -next_up(-x): g++'s
/// constant evaluator charges every call, and outward rounding is on every interval operation.
constexpr double next_down(double x)
{
    if (x != x) invalid_interval_detected();
    if (x == -std::numeric_limits<double>::infinity()) return x;
    if (x == 0.0) return -std::numeric_limits<double>::denorm_min();
    const auto bits = std::bit_cast<std::uint64_t>(x);
    return std::bit_cast<double>(x > 0 ? bits - 1 : bits + 1);
}

enum class certainty { holds, fails, undecided };

class interval {
public:
    /// The point interval [x, x]: exact, a double is a real number.
    constexpr interval(double x = 0.0) : lo_(x), hi_(x) { check(); }
    constexpr interval(double lo, double hi) : lo_(lo), hi_(hi) { check(); }
    /// An integer, exactly when |k| <= 2^53; beyond, the two doubles around it (a position of
    /// 10^17 must not silently become a different real number).
    template <std::integral I>
    constexpr interval(I k) : lo_(static_cast<double>(k)), hi_(lo_)
    {
        constexpr I exact_limit = std::numeric_limits<I>::digits <= 53 ? std::numeric_limits<I>::max() : I(1) << 53;
        const bool exact = std::is_signed_v<I> ? (k <= exact_limit && k >= -exact_limit) : k <= exact_limit;
        if (!exact) {
            lo_ = next_down(lo_);
            hi_ = next_up(hi_);
        }
    }

    [[nodiscard]] constexpr double lo() const { return lo_; }
    [[nodiscard]] constexpr double hi() const { return hi_; }
    [[nodiscard]] constexpr double width() const { return hi_ - lo_; }
    [[nodiscard]] constexpr bool contains(double x) const { return lo_ <= x && x <= hi_; }

    // The operations below are written for g++'s constant evaluator, which charges each call and
    // each loop step: the four products are compared in straight-line code, and results go
    // through the unchecked constructor (next_down/next_up already refuse NaN).
    friend constexpr interval operator+(const interval& a, const interval& b)
    {
        return {next_down(a.lo_ + b.lo_), next_up(a.hi_ + b.hi_), unchecked{}};
    }
    friend constexpr interval operator-(const interval& a, const interval& b)
    {
        return {next_down(a.lo_ - b.hi_), next_up(a.hi_ - b.lo_), unchecked{}};
    }
    constexpr interval operator-() const { return {-hi_, -lo_, unchecked{}}; }  // exact

    friend constexpr interval operator*(const interval& a, const interval& b)
    {
        const double p0 = a.lo_ * b.lo_, p1 = a.lo_ * b.hi_, p2 = a.hi_ * b.lo_, p3 = a.hi_ * b.hi_;
        if (p0 != p0 || p1 != p1 || p2 != p2 || p3 != p3) invalid_interval_detected();  // 0 * inf
        const double lo01 = p1 < p0 ? p1 : p0, lo23 = p3 < p2 ? p3 : p2;
        const double hi01 = p1 > p0 ? p1 : p0, hi23 = p3 > p2 ? p3 : p2;
        return {next_down(lo23 < lo01 ? lo23 : lo01), next_up(hi23 > hi01 ? hi23 : hi01), unchecked{}};
    }
    friend constexpr interval operator/(const interval& a, const interval& b)
    {
        if (b.lo_ <= 0.0 && 0.0 <= b.hi_) interval_division_by_zero_detected();
        const double q0 = a.lo_ / b.lo_, q1 = a.lo_ / b.hi_, q2 = a.hi_ / b.lo_, q3 = a.hi_ / b.hi_;
        if (q0 != q0 || q1 != q1 || q2 != q2 || q3 != q3) invalid_interval_detected();  // inf / inf
        const double lo01 = q1 < q0 ? q1 : q0, lo23 = q3 < q2 ? q3 : q2;
        const double hi01 = q1 > q0 ? q1 : q0, hi23 = q3 > q2 ? q3 : q2;
        return {next_down(lo23 < lo01 ? lo23 : lo01), next_up(hi23 > hi01 ? hi23 : hi01), unchecked{}};
    }
    constexpr interval& operator+=(const interval& b) { return *this = *this + b; }
    constexpr interval& operator-=(const interval& b) { return *this = *this - b; }
    constexpr interval& operator*=(const interval& b) { return *this = *this * b; }

    /// Equality of enclosures, not of the reals they enclose (for matrix bookkeeping).
    friend constexpr bool operator==(const interval&, const interval&) = default;

private:
    struct unchecked {};
    // For results of the operations above: their endpoints are ordered and not NaN by construction.
    constexpr interval(double lo, double hi, unchecked) : lo_(lo), hi_(hi) {}

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
