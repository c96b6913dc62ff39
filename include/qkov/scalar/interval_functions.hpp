// Certified enclosures of sqrt, exp, log, cos, sin and base^x on intervals, in constant evaluation.
//
// Each function reduces its argument with interval arithmetic (so the reduction's rounding is
// enclosed too), sums a Taylor series in interval arithmetic, and adds a bound on the remainder:
//   exp(r),  |r| <= 0.36:     sum_{n<N} r^n/n!  +  [-1, 1] 1.5 |r|^N/N!
//   sin, cos of |r| <= 0.8:   alternating series, remainder <= |r|^n/n! of the first term left out
//   log(m),  m in [0.707, 1.415]: 2 atanh(z), z = (m-1)/(m+1), |z| <= 0.172, remainder <= 2 |z|^{2N+1} / ((2N+1)(1 - z^2))
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

// Enclosures of 1/k! for k < 24, computed once per translation unit: the series below are
// evaluated in Horner form with these, which costs g++'s constant evaluator a third of what
// building each term from the previous one (a product and two divisions) did.
struct inverse_factorial_table {
    static constexpr int size = 24;
    interval value[size];
    constexpr inverse_factorial_table() : value{}
    {
        value[0] = interval(1.0);
        for (int k = 1; k < size; ++k) value[k] = value[k - 1] / interval(static_cast<double>(k));
    }
};
inline constexpr inverse_factorial_table inverse_factorial{};

// An upper bound of m^n for m >= 0, by squaring (a handful of products instead of n).
constexpr double power_upper_bound(double m, int n)
{
    interval result(1.0), base(m);
    for (; n > 0; n >>= 1) {
        if (n & 1) result *= base;
        base *= base;
    }
    return result.hi();
}

// x 2^k rounded down (upper = false) or up, for a double x in [0.5, 2] and |k| <= 1100: the
// largest double below, or the smallest above, even where x 2^k is subnormal (the product rounds
// there) or beyond DBL_MAX (+inf above, DBL_MAX below). The product is taken in two steps: by
// 2^k1, |k1| <= 550, which is exact, then by 2^k2, which alone may round; scaling that result
// back by 2^-k2 is exact and tells on which side it rounded. Overflow is tested before it would
// happen, because g++ refuses an overflowing product in constant evaluation.
constexpr double scale_by_power_of_two(double x, int k, bool upper)
{
    const int k1 = k / 2, k2 = k - k1;
    const double partial = x * power_of_two(k1);
    if (k2 > 0 && partial > std::numeric_limits<double>::max() * power_of_two(-k2))
        return upper ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::max();
    const double scaled = partial * power_of_two(k2);
    const double back = scaled * power_of_two(-k2);
    if (upper) return back < partial ? next_up(scaled) : scaled;
    return back > partial ? next_down(scaled) : scaled;
}

// sum_{j <= last} (-1)^j r2^j / (first + 2j)!, by Horner's rule in interval arithmetic: cos for
// first = 0, sin(r) / r for first = 1.
constexpr interval alternating_even_series(const interval& r2, int first, int last)
{
    interval sum = inverse_factorial.value[first + 2 * last];
    for (int j = last - 1; j >= 0; --j) sum = inverse_factorial.value[first + 2 * j] - sum * r2;
    return sum;
}

// exp of a small interval r (|r| <= 0.36) by its Taylor series with remainder.
constexpr interval exp_small(const interval& r)
{
    constexpr int terms = 17;  // sum_{n < 17} r^n / n!; 0.36^17 / 17! ~ 9e-23: far below one ulp
    interval sum = inverse_factorial.value[terms - 1];
    for (int n = terms - 2; n >= 0; --n) sum = inverse_factorial.value[n] + sum * r;
    // remainder sum_{n >= N} r^n/n! <= |r|^N/N! * 1/(1 - |r|/(N+1)) < 1.5 |r|^N/N!
    const double bound = (interval(power_upper_bound(magnitude(r), terms)) * inverse_factorial.value[terms] * interval(1.5)).hi();
    return sum + interval(-bound, bound);
}

// 0.8^n / n! rounded up: the largest Taylor term of degree n of sin or cos after reduction.
struct reduced_term_bound_table {
    static constexpr int size = inverse_factorial_table::size;
    double value[size];
    constexpr reduced_term_bound_table() : value{}
    {
        interval power(1.0);
        for (int n = 0; n < size; ++n) {
            value[n] = (power * inverse_factorial.value[n]).hi();
            power *= interval(0.8);
        }
    }
};
inline constexpr reduced_term_bound_table reduced_term_bound{};

// sin or cos of a small interval r (|r| <= 0.8) by the alternating Taylor series, whose
// remainder is at most the first term left out (terms decrease while r^2 < (n+1)(n+2)).
// `tolerance`: a truncation error the caller will not notice (its own enclosure is that wide
// anyway); fewer terms are summed then. The remainder is added either way, so it stays sound.
constexpr interval sin_cos_small(const interval& r, bool sine, double tolerance = 0.0)
{
    if (magnitude(r) > 0.8) return {-1.0, 1.0};  // outside the table's range: the trivial bound
    const int first = sine ? 1 : 0;
    int last = 9;  // up to r^18 (cos) or r^19 (sin); 0.8^20 / 20! ~ 5e-21
    while (last > 1 && reduced_term_bound.value[first + 2 * last] <= tolerance) --last;
    interval sum = alternating_even_series(r * r, first, last);
    if (sine) sum = sum * r;
    // The term left out: 0.8^n/n! from the table, except for the sine of small r, where only
    // |r|^n/n! keeps the bound relative to the value (the power costs a few products).
    const int left_out = first + 2 * last + 2;
    const double m = magnitude(r);
    const double bound = sine && m < 0x1p-6
                             ? (interval(power_upper_bound(m, left_out)) * inverse_factorial.value[left_out]).hi()
                             : reduced_term_bound.value[left_out];
    return sum + interval(-bound, bound);
}
} // namespace detail

/// exp(x) enclosed; exp is increasing, so the endpoints bound it. exp(v) = exp(r) 2^k with
/// v = k ln 2 + r, each end of exp(r) scaled by 2^k with rounding in its own direction: finite
/// bounds up to DBL_MAX (exp(709.78) < DBL_MAX is decided) and a positive lower bound wherever
/// exp(v) is at least the smallest subnormal (v >= -744.44).
constexpr interval exp(const interval& x)
{
    auto at = [](double v, bool upper) {
        // exp(710) > DBL_MAX and exp(-746) < denorm_min / 2: beyond them the bounds are +inf
        // and 0, and the other bound is the one at 710 or -746 (exp is increasing).
        if (v > 710.0) {
            if (upper) return std::numeric_limits<double>::infinity();
            v = 710.0;
        }
        if (v < -746.0) {
            if (!upper) return 0.0;
            v = -746.0;
        }
        const double k_double = v / 0x1.62e42fefa39efp-1;
        const int k = static_cast<int>(k_double < 0 ? k_double - 0.5 : k_double + 0.5);  // -1076 <= k <= 1024
        const interval r = interval(v) - interval(static_cast<double>(k)) * detail::ln2;  // |r| <= ~0.35
        const interval e = detail::exp_small(r);  // within [0.7, 1.5]
        if (!upper && e.lo() <= 0.0) return 0.0;
        return detail::scale_by_power_of_two(upper ? e.hi() : e.lo(), k, upper);
    };
    return {at(x.lo(), false), at(x.hi(), true)};
}

/// log(x) for x > 0 enclosed; log is increasing.
constexpr interval log(const interval& x)
{
    if (x.lo() <= 0.0) invalid_interval_detected();
    auto at = [](double v, bool upper) {
        // +inf is only ever an upper end (interval's invariant): log of an unbounded interval is
        // unbounded above. Were it a lower end, the real would still be >= DBL_MAX, so bound that.
        if (v == std::numeric_limits<double>::infinity()) {
            if (upper) return v;
            v = std::numeric_limits<double>::max();
        }
        // v = m 2^e with m in [sqrt(1/2), sqrt(2)): read e from the bits (v normal or subnormal).
        // Centred on 1, so that near 1 e = 0 and log v = 2 atanh((v - 1)/(v + 1)) keeps the
        // relative accuracy of v - 1 (exact): log(1 - 2^-53) is enclosed to 1e-14 of its own
        // size, not to ulps of ln 2 - log(2 v) ~ 0.69, which cancel to it and swamp its sign.
        int e = 0;
        while (v >= 2.0) {
            v *= 0.5;  // exact
            ++e;
        }
        while (v < 1.0) {
            v *= 2.0;  // exact
            --e;
        }
        if (v > 0x1.6a09e667f3bcdp+0) {  // the double nearest sqrt 2; any cut in [1, 2) is sound
            v *= 0.5;
            ++e;
        }
        const interval m(v);
        const interval z = (m - interval(1.0)) / (m + interval(1.0));  // |z| <= 0.1716
        const interval z2 = z * z;
        constexpr int terms = 16;  // 0.1716^33 / 33 ~ 2e-27
        interval power = z, sum = z;
        for (int n = 1; n < terms; ++n) {
            power *= z2;
            sum += power / interval(static_cast<double>(2 * n + 1));
        }
        const interval tail = power * z2 / (interval(static_cast<double>(2 * terms + 1)) * (interval(1.0) - z2));
        const double bound = detail::magnitude(tail);
        const interval log_m = interval(2.0) * (sum + interval(-bound, bound));
        const interval result = e == 0 ? log_m : log_m + interval(static_cast<double>(e)) * detail::ln2;
        return upper ? result.hi() : result.lo();
    };
    return {at(x.lo(), false), at(x.hi(), true)};
}

namespace detail {
/// v = m * 4^k with m in [1, 4), for finite v > 0. Every step multiplies by a power of two, so
/// m is exact even when v is subnormal, and sqrt(v) = sqrt(m) * 2^k exactly.
struct quarter_scaled { double mantissa; double root_scale; };
constexpr quarter_scaled scale_into_one_to_four(double v)
{
    double root_scale = 1.0;
    while (v >= 0x1p64) v *= 0x1p-64, root_scale *= 0x1p32;
    while (v < 0x1p-64) v *= 0x1p64, root_scale *= 0x1p-32;
    while (v >= 4.0) v *= 0.25, root_scale *= 2.0;
    while (v < 1.0) v *= 4.0, root_scale *= 0.5;
    return {v, root_scale};
}

/// The square of s, enclosed (one outward-rounded product).
constexpr interval square_of(double s) { return interval(s) * interval(s); }

/// A double certainly below (upper = false) or above (upper = true) sqrt(v), for v >= 0.
/// Six Newton steps from 1.5 give a root of m in [1, 4) to within a few ulps (quadratic
/// convergence from an error below 0.5); that guess is then stepped one ulp at a time until its
/// outward-rounded square certifies the side, so the bound never trusts the iteration. Working
/// on m rather than v keeps the squares away from underflow and overflow, where one ulp steps
/// of the root would barely move them. Scaling back by 2^k is exact: sqrt of a positive double
/// lies in [2^-537, 2^512], normal range. Written out because clang 16 does not fold
/// __builtin_sqrt in constant evaluation; one implementation serves both evaluators and run time.
constexpr double sqrt_bound(double v, bool upper)
{
    if (v == 0.0) return 0.0;
    if (v == std::numeric_limits<double>::infinity())
        return upper ? v : std::numeric_limits<double>::max();
    const auto [m, root_scale] = scale_into_one_to_four(v);
    double s = 1.5;
    for (int step = 0; step < 6; ++step) s = 0.5 * (s + m / s);
    if (upper)
        while (square_of(s).lo() < m) s = next_up(s);
    else
        while (square_of(s).hi() > m) s = next_down(s);
    return s * root_scale;
}
} // namespace detail

/// sqrt(x) for x >= 0 enclosed: each end is a double whose square is compared with the end of x
/// in outward-rounded arithmetic, so the enclosure rests only on correctly rounded products (the
/// same assumption as every interval operation), the same code in constant evaluation on every
/// compiler and at run time.
constexpr interval sqrt(const interval& x)
{
    if (x.lo() < 0.0) invalid_interval_detected();
    return {detail::sqrt_bound(x.lo(), false), detail::sqrt_bound(x.hi(), true)};
}

/// base^x = exp(x log(base)) for base > 0.
constexpr interval pow(const interval& base, const interval& x) { return exp(x * log(base)); }

namespace detail {
// sin and cos of the point v: v = k pi/2 + r with the reduction done in interval arithmetic,
// then the quadrant of k. `tolerance`: see sin_cos_small. Both values share one reduction.
struct sin_and_cos {
    interval sin;
    interval cos;
};

constexpr sin_and_cos sin_cos_point(double v, bool want_sine, bool want_cosine, double tolerance = 0.0)
{
    const sin_and_cos trivial{{-1.0, 1.0}, {-1.0, 1.0}};
    const double k_double = v / 0x1.921fb54442d18p+0;
    if (!(k_double < 9.0e15 && k_double > -9.0e15)) return trivial;  // too large to reduce: still true
    const auto k = static_cast<std::int64_t>(k_double < 0 ? k_double - 0.5 : k_double + 0.5);
    const interval k_interval(static_cast<double>(k));
    const bool split = k < (std::int64_t{1} << 24) && k > -(std::int64_t{1} << 24);
    const interval r = split ? (interval(v) - interval(static_cast<double>(k) * half_pi_head)) - k_interval * half_pi_tail
                             : interval(v) - k_interval * half_pi;
    if (magnitude(r) > 0.8) return trivial;  // reduction too wide to evaluate: the trivial bound
    const int quadrant = static_cast<int>(((k % 4) + 4) % 4);
    // sin(k pi/2 + r) and cos(k pi/2 + r) are +-sin r or +-cos r by quadrant.
    const bool sine_from_sin = quadrant % 2 == 0, sine_negated = quadrant >= 2;
    const bool cosine_negated = quadrant == 1 || quadrant == 2;
    const bool need_sin_r = (want_sine && sine_from_sin) || (want_cosine && !sine_from_sin);
    const bool need_cos_r = (want_sine && !sine_from_sin) || (want_cosine && sine_from_sin);
    const interval sin_r = need_sin_r ? sin_cos_small(r, true, tolerance) : trivial.sin;
    const interval cos_r = need_cos_r ? sin_cos_small(r, false, tolerance) : trivial.cos;
    const interval sine = sine_from_sin ? sin_r : cos_r;
    const interval cosine = sine_from_sin ? cos_r : sin_r;
    const interval unit(-1.0, 1.0);
    return {intersect(sine_negated ? -sine : sine, unit), intersect(cosine_negated ? -cosine : cosine, unit)};
}

// sin or cos over an interval [c - rho, c + rho]. Two enclosures, both valid, intersected:
//   first order:  f(c) + [-rho, rho]                          (|f'| <= 1)
//   second order: f(c) + f'(c) [-rho, rho] + [-rho^2/2, rho^2/2]   (|f''| <= 1)
// The second is what makes bounds near an extremum tight (f'(c) ~ 0 there): without it, every
// block of offsets near a return k theta ~ 2 pi j had to be split down to single integers.
constexpr interval sin_cos(const interval& x, bool sine)
{
    if (x.lo() == x.hi()) {
        const sin_and_cos value = sin_cos_point(x.lo(), sine, !sine);
        return sine ? value.sin : value.cos;
    }
    if (x.hi() - x.lo() >= 6.3) return {-1.0, 1.0};  // a whole period (> 2 pi): nothing to evaluate
    const double mid = x.lo() + (x.hi() - x.lo()) / 2;  // any point of the interval will do
    const interval radius_enclosure = hull(interval(mid) - interval(x.lo()), interval(x.hi()) - interval(mid));
    const double rho = magnitude(radius_enclosure);
    const interval spread(-rho, rho);
    // The result is at least rho^2 wide: the series need not be summed far below that.
    const sin_and_cos at_mid = sin_cos_point(mid, true, true, rho * rho / 1024);
    const interval value = sine ? at_mid.sin : at_mid.cos;
    const interval slope = sine ? at_mid.cos : -at_mid.sin;
    const double curvature = (interval(rho) * interval(rho) * interval(0.5)).hi();
    const interval first_order = value + spread;
    const interval second_order = value + slope * spread + interval(-curvature, curvature);
    return intersect(intersect(first_order, second_order), interval(-1.0, 1.0));
}
} // namespace detail

constexpr interval sin(const interval& x) { return detail::sin_cos(x, true); }
constexpr interval cos(const interval& x) { return detail::sin_cos(x, false); }

} // namespace qkov
