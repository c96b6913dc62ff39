// interval: certified enclosures [lo, hi] of real numbers in double precision, usable in
// constant evaluation, for inequalities that cannot be proved with exact arithmetic.
//
// Soundness rests on one assumption: + - * / of doubles are correctly rounded to nearest, in
// constant evaluation (g++ and clang evaluate them so) and at run time (IEEE default rounding;
// qkov's own targets build with -ffp-contract=off, so no fused multiply-add changes a rounding).
// A correctly rounded result is within half an ulp of the exact one, so stepping one ulp
// outwards (next_down / next_up) encloses the exact result. Tested against exact rationals in
// constant evaluation (tests/static/interval_static_tests.cpp, with g++ and clang) and against
// 100-digit Boost numbers at run time (tests/interval_tests.cpp, also built as a user's build
// may be: -O3 -march=native with contraction into fused multiply-adds). -ffast-math is refused.
//
// An interval is a set of reals: an end may be infinite only on its own side (-inf below, +inf
// above; an overflow gives [DBL_MAX, inf] at run time, and a product of finite ends that overflows
// in constant evaluation stops at interval_overflow_in_constant_evaluation, the same on both
// evaluators), so a point [x, x] is always a finite real.
//
// Comparisons are three-valued: holds, fails or undecided (the enclosures overlap). A proof
// may only use `holds`; undecided is never success. operator== compares enclosures, not reals
// (see its comment): equality of reals is certainly_equal.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "qkov/scalar/errors.hpp"
#include "qkov/scalar/native_integer.hpp"

// -ffast-math (and -ffinite-math-only, part of it) lets the compiler assume that no value is NaN
// or infinite and reassociate sums: the NaN checks every enclosure relies on would be compiled
// away and a reassociated sum is no longer the one whose rounding was stepped outwards.
#if defined(__FAST_MATH__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
#error "qkov: interval arithmetic is unsound under -ffast-math or -ffinite-math-only (NaN checks and rounding would be optimised away); build without them"
#endif

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

/// Numbers that are doubles exactly: an interval takes them as the point [x, x].
template <class T>
concept exact_double_source = std::same_as<T, double> || std::same_as<T, float>;

/// Numbers an interval accepts: exact doubles, and numbers it encloses in the two doubles around
/// them when they are not doubles (integers of every width, __int128 included in strict modes, and
/// long double). Anything else (__float128, _Float16, class types) matches no constructor instead
/// of converting to double first: a silent narrowing would be treated as exact.
template <class T>
concept interval_source = exact_double_source<T> || std::same_as<T, long double> || native_integer<T>;

class interval {
public:
    /// [0, 0].
    constexpr interval() : lo_(0.0), hi_(0.0) {}
    /// The point interval [x, x] for a finite double or float x (exact: a finite double is a real
    /// number), and for an integer or long double that is a double; otherwise an enclosure with
    /// double bounds: the tightest one for a long double, the doubles one ulp around the nearest
    /// for an integer. An infinity is no real number: not_a_finite_number (1e400 as a double is
    /// +inf, and [inf, inf] would compare equal to every other overflowed literal).
    template <interval_source T>
    constexpr interval(T x) : lo_(lower_bound(x)), hi_(upper_bound(x))
    {
        check();
    }
    /// [lo, hi], each end rounded outwards if it is not a double. An unbounded end is allowed on
    /// its own side only: -inf as lo, +inf as hi ([DBL_MAX, inf] holds every real >= DBL_MAX);
    /// +inf as lo or -inf as hi would enclose no real: not_a_finite_number.
    template <interval_source A, interval_source B>
    constexpr interval(A lo, B hi) : lo_(lower_bound(lo)), hi_(upper_bound(hi))
    {
        check();
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
        if (std::is_constant_evaluated()) {
            refuse_overflow(a.lo_, b.lo_), refuse_overflow(a.lo_, b.hi_), refuse_overflow(a.hi_, b.lo_), refuse_overflow(a.hi_, b.hi_);
        }
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

    /// NOT an equality of real numbers. a == b says the two enclosures have the same bounds,
    /// which two different reals can share: exp(1e-20) == exp(0) is true, because both enclose
    /// in [1, next_up(1)]. It exists for bookkeeping (matrices of intervals, skipping the exact
    /// zero [0, 0] in products). To prove that two reals are equal, use certainly_equal, which
    /// holds only for two identical point intervals.
    friend constexpr bool operator==(const interval&, const interval&) = default;

    /// The point interval [0, 0]: the real number 0 exactly (so a matrix product may skip it).
    [[nodiscard]] constexpr bool is_zero() const { return lo_ == 0.0 && hi_ == 0.0; }

private:
    // In constant evaluation, x y of finite x, y beyond DBL_MAX: g++'s evaluator refuses the
    // multiplication without naming it and clang's rounds it to infinity, so the evaluators would
    // disagree; both stop at the named failure instead, before multiplying. |x y| <= max(|x|, |y|)
    // when either is at most 1; otherwise DBL_MAX / |y| is finite and |x| > DBL_MAX / |y| flags every
    // overflow except products within rounding of DBL_MAX, which each evaluator then handles as
    // before (refused by g++, [DBL_MAX, inf] with clang: still an enclosure).
    static constexpr void refuse_overflow(double x, double y)
    {
        constexpr double largest = std::numeric_limits<double>::max();
        const double ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
        if (ax <= largest && ay <= largest && ax > 1.0 && ay > 1.0 && ax > largest / ay) interval_overflow_in_constant_evaluation();
    }

    // A double <= x and a double >= x: x itself when it is a double; for a long double the
    // neighbours of x; for an integer that is no double, one ulp outwards of the conversion (which
    // is within half an ulp of the integer, so one ulp outwards encloses it).
    template <interval_source T>
    static constexpr double lower_bound(T x)
    {
        return bound(x, false);
    }
    template <interval_source T>
    static constexpr double upper_bound(T x)
    {
        return bound(x, true);
    }
    template <interval_source T>
    static constexpr double bound(T x, bool upper)
    {
        if constexpr (exact_double_source<T>) {
            return static_cast<double>(x);
        } else if constexpr (std::same_as<T, long double>) {
            if (x != x) invalid_interval_detected();
            const double d = static_cast<double>(x);
            const long double back = d;  // exact: every double is a long double
            if (back == x) return d;
            if (upper) return back > x ? d : next_up(d);
            return back < x ? d : next_down(d);
        } else {
            // |x| through unsigned __int128, which holds every native integer's magnitude.
            const unsigned __int128 magnitude = is_negative(x) ? static_cast<unsigned __int128>(0) - static_cast<unsigned __int128>(x)
                                                               : static_cast<unsigned __int128>(x);
            const double d = static_cast<double>(x);
            const double d_magnitude = d < 0 ? -d : d;
            // Exact when the double converts back to the same magnitude (checked below 2^128,
            // where the conversion back is defined); otherwise one ulp outwards.
            const bool exact = magnitude <= (static_cast<unsigned __int128>(1) << 53) ||
                               (d_magnitude < 0x1p128 && static_cast<unsigned __int128>(d_magnitude) == magnitude);
            if (exact) return d;
            return upper ? next_up(d) : next_down(d);
        }
    }

    struct unchecked {};
    // For results of the operations above: their endpoints are ordered and not NaN by construction.
    constexpr interval(double lo, double hi, unchecked) : lo_(lo), hi_(hi) {}

    // Every interval, checked or built by an operation, keeps lo < +inf and hi > -inf: that is
    // what makes a point [x, x] finite and a comparison of bounds a comparison of reals. The
    // operations keep it without a check: a lower end is next_down of something (+inf steps to
    // DBL_MAX), an upper end next_up, and negation swaps the ends.
    constexpr void check() const
    {
        if (lo_ != lo_ || hi_ != hi_) invalid_interval_detected();
        if (lo_ == std::numeric_limits<double>::infinity() || hi_ == -std::numeric_limits<double>::infinity())
            not_a_finite_number();
        if (lo_ > hi_) invalid_interval_detected();
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

/// a = b for every pair of reals the intervals enclose: holds only when both are the same finite
/// point [x, x] (then both reals are x); fails when the enclosures are disjoint; else undecided.
/// This, not ==, is the equality a proof may assert. The finiteness test repeats the interval's
/// invariant on purpose: an unbounded interval holds more than one real, whatever its bounds say.
constexpr certainty certainly_equal(const interval& a, const interval& b)
{
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (a.lo() == a.hi() && b.lo() == b.hi() && a.lo() == b.lo() && a.lo() != inf && a.lo() != -inf)
        return certainty::holds;
    if (a.hi() < b.lo() || b.hi() < a.lo()) return certainty::fails;
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
