// Certified enclosures of exp, log, cos, sin and base^x on intervals, in constant evaluation.
//
// Each function reduces its argument with interval arithmetic (so the reduction's rounding is
// enclosed too), sums a Taylor series in interval arithmetic, and adds a bound on the remainder:
//   exp(r),  |r| <= 0.35:     sum_{n<N} r^n/n!  +  [-1, 1] |r|^N/N! * 1.5      (e^{0.35} < 1.5)
//   sin, cos of |r| <= 0.8:   alternating series, remainder <= |r|^{n}/n! of the first term left out
//   log(m),  m in [1, 2]:     2 atanh(z), z = (m-1)/(m+1) <= 1/3, remainder <= 2 z^{2N+1} / ((2N+1)(1 - z^2))
// The constants ln 2 and pi/2 enter as enclosures [nearest double, next double] that contain them
// (each is checked against a 100-digit value in tests/interval_tests.cpp). Wide arguments are
// handled soundly (the reduction's width grows with |x|), never refused silently: a result that
// is too wide to be useful makes comparisons `undecided`, not wrong.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

#include "qkov/scalar/errors.hpp"
#include "qkov/scalar/interval.hpp"

namespace qkov {

namespace detail {
// 2^k exactly, for |k| < 1023 (normal range).
constexpr double power_of_two(int k)
{
    if (k < -1022 || k > 1023) invalid_interval_detected();
    return std::bit_cast<double>(static_cast<std::uint64_t>(k + 1023) << 52);
}

constexpr interval hull(const interval& a, const interval& b)
{
    return {a.lo() < b.lo() ? a.lo() : b.lo(), a.hi() > b.hi() ? a.hi() : b.hi()};
}

constexpr interval intersect(const interval& a, const interval& b)
{
    const double lo = a.lo() > b.lo() ? a.lo() : b.lo();
    const double hi = a.hi() < b.hi() ? a.hi() : b.hi();
    if (lo > hi) invalid_interval_detected();  // cannot happen for enclosures of the same real
    return {lo, hi};
}

constexpr double magnitude(const interval& x)
{
    const double a = x.lo() < 0 ? -x.lo() : x.lo();
    const double b = x.hi() < 0 ? -x.hi() : x.hi();
    return a > b ? a : b;
}

// ln 2 = 0.693147180559945309417... lies between these adjacent doubles.
constexpr interval ln2{0x1.62e42fefa39efp-1, 0x1.62e42fefa39f0p-1};
// pi/2 = 1.570796326794896619231... likewise.
constexpr interval half_pi{0x1.921fb54442d18p+0, 0x1.921fb54442d19p+0};
// pi/2 split as C1 + C2 (Cody-Waite): C1 has 29 significant bits, so k * C1 is exact for
// |k| < 2^24, and C2 = pi/2 - C1 ~ 9.92e-10 is enclosed by two adjacent doubles. Reducing
// with the split keeps angles up to ~2.6e7 accurate to ~1e-16 instead of k ulps of pi/2.
constexpr double half_pi_head = 0x1.921fb54p+0;
constexpr interval half_pi_tail{0x1.10b4611a62633p-30, 0x1.10b4611a62634p-30};

// exp of a small interval r (|r| <= 0.36) by its Taylor series with remainder.
constexpr interval exp_small(const interval& r)
{
    constexpr int terms = 22;  // 0.36^22 / 22! ~ 1e-31: far below one ulp
    interval sum(1.0), power(1.0), factorial(1.0);
    for (int n = 1; n < terms; ++n) {
        power *= r;
        factorial *= interval(static_cast<double>(n));
        sum += power / factorial;
    }
    const interval remainder = (power * r) / (factorial * interval(static_cast<double>(terms))) * interval(1.5);
    const double bound = magnitude(remainder);
    return sum + interval(-bound, bound);
}

// sin or cos of a small interval r (|r| <= 0.8) by the alternating Taylor series.
constexpr interval sin_cos_small(const interval& r, bool sine)
{
    constexpr int terms = 14;  // 0.8^28 / 28! ~ 5e-33
    const interval r2 = r * r;
    interval term = sine ? r : interval(1.0);
    interval sum = term;
    int n = sine ? 1 : 0;
    for (int k = 1; k < terms; ++k) {
        term = -(term * r2) / (interval(static_cast<double>(n + 1)) * interval(static_cast<double>(n + 2)));
        n += 2;
        sum += term;
    }
    const interval next = term * r2 / (interval(static_cast<double>(n + 1)) * interval(static_cast<double>(n + 2)));
    const double bound = magnitude(next);
    return sum + interval(-bound, bound);
}
} // namespace detail

/// exp(x) enclosed; exp is increasing, so the endpoints bound it.
constexpr interval exp(const interval& x)
{
    auto at = [](double v, bool upper) {
        if (v > 709.0) {
            if (upper) return std::numeric_limits<double>::infinity();
            v = 709.0;  // the lower bound of a larger value is the bound at 709
        }
        if (v < -708.0) return upper ? detail::power_of_two(-1020) : 0.0;  // exp(v) < 2^-1020
        const double k_double = v / 0x1.62e42fefa39efp-1;
        const int k = static_cast<int>(k_double < 0 ? k_double - 0.5 : k_double + 0.5);
        const interval r = interval(v) - interval(static_cast<double>(k)) * detail::ln2;  // |r| <= ~0.35
        const interval e = detail::exp_small(r) * interval(detail::power_of_two(k));
        return upper ? e.hi() : (e.lo() < 0 ? 0.0 : e.lo());
    };
    return {at(x.lo(), false), at(x.hi(), true)};
}

/// log(x) for x > 0 enclosed; log is increasing.
constexpr interval log(const interval& x)
{
    if (x.lo() <= 0.0) invalid_interval_detected();
    auto at = [](double v, bool upper) {
        // v = m 2^e with m in [1, 2): read e from the bits (v normal or subnormal).
        int e = 0;
        while (v >= 2.0) {
            v *= 0.5;  // exact
            ++e;
        }
        while (v < 1.0) {
            v *= 2.0;  // exact
            --e;
        }
        const interval m(v);
        const interval z = (m - interval(1.0)) / (m + interval(1.0));  // 0 <= z <= 1/3
        const interval z2 = z * z;
        constexpr int terms = 40;  // (1/3)^81 / 81 ~ 1e-40
        interval power = z, sum = z;
        for (int n = 1; n < terms; ++n) {
            power *= z2;
            sum += power / interval(static_cast<double>(2 * n + 1));
        }
        const interval tail = power * z2 / (interval(static_cast<double>(2 * terms + 1)) * (interval(1.0) - z2));
        const double bound = detail::magnitude(tail);
        const interval result = interval(2.0) * (sum + interval(-bound, bound)) + interval(static_cast<double>(e)) * detail::ln2;
        return upper ? result.hi() : result.lo();
    };
    return {at(x.lo(), false), at(x.hi(), true)};
}

/// base^x = exp(x log(base)) for base > 0.
constexpr interval pow(const interval& base, const interval& x) { return exp(x * log(base)); }

namespace detail {
// sin (sine = true) or cos of the point interval [v, v]: v = k pi/2 + r, then the quadrant of k.
constexpr interval sin_cos_point(double v, bool sine)
{
    const double k_double = v / 0x1.921fb54442d18p+0;
    if (!(k_double < 9.0e15 && k_double > -9.0e15)) return {-1.0, 1.0};  // too large to reduce: still true
    const auto k = static_cast<std::int64_t>(k_double < 0 ? k_double - 0.5 : k_double + 0.5);
    const interval k_interval(static_cast<double>(k));
    const bool split = k < (std::int64_t{1} << 24) && k > -(std::int64_t{1} << 24);
    const interval r = split ? (interval(v) - interval(static_cast<double>(k) * half_pi_head)) - k_interval * half_pi_tail
                             : interval(v) - k_interval * half_pi;
    if (magnitude(r) > 0.8) return {-1.0, 1.0};  // reduction too wide to evaluate: the trivial bound
    const int quadrant = static_cast<int>(((k % 4) + 4) % 4);
    const bool use_sine = sine ? (quadrant % 2 == 0) : (quadrant % 2 == 1);
    const interval value = sin_cos_small(r, use_sine);
    const bool negate = sine ? (quadrant >= 2) : (quadrant == 1 || quadrant == 2);
    return intersect(negate ? -value : value, interval(-1.0, 1.0));
}

// sin or cos of an interval: the value at the midpoint widened by the half-width (both functions
// are 1-Lipschitz), intersected with the endpoint hull bound [-1, 1].
constexpr interval sin_cos(const interval& x, bool sine)
{
    if (x.lo() == x.hi()) return sin_cos_point(x.lo(), sine);
    const double mid = x.lo() + (x.hi() - x.lo()) / 2;  // any point of the interval will do
    const interval radius = interval(x.hi()) - interval(mid);
    const interval spread = hull(interval(mid) - interval(x.lo()), radius);
    const double bound = magnitude(spread);
    return intersect(sin_cos_point(mid, sine) + interval(-bound, bound), interval(-1.0, 1.0));
}
} // namespace detail

constexpr interval sin(const interval& x) { return detail::sin_cos(x, true); }
constexpr interval cos(const interval& x) { return detail::sin_cos(x, false); }

} // namespace qkov
