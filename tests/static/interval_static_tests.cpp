// Interval enclosures in constant evaluation, checked against exact rational arithmetic on the
// exact values of the doubles involved.
#include <bit>
#include <cstdint>
#include <limits>

#include "qkov/scalar/interval.hpp"
#include "qkov/scalar/rational.hpp"

namespace {
using namespace qkov;
using Q = rational128;

/// The exact rational value of a finite double whose binary exponent keeps it inside __int128.
constexpr Q exact(double x)
{
    const auto bits = std::bit_cast<std::uint64_t>(x);
    const bool negative = bits >> 63;
    const int biased = static_cast<int>((bits >> 52) & 0x7FF);
    std::int64_t mantissa = static_cast<std::int64_t>(bits & ((std::uint64_t{1} << 52) - 1));
    if (biased != 0) mantissa += std::int64_t{1} << 52;
    const int exponent = (biased == 0 ? 1 : biased) - 1075;  // x = mantissa * 2^exponent
    Q value(mantissa);
    const Q two(2);
    for (int k = 0; k < (exponent < 0 ? -exponent : exponent); ++k) value = exponent < 0 ? value / two : value * two;
    return negative ? -value : value;
}

constexpr bool encloses(const interval& i, const Q& x) { return exact(i.lo()) <= x && x <= exact(i.hi()); }

// The exact results of operations on 0.1, 0.2, 3.0, 1/3 lie inside the enclosures.
static_assert(encloses(interval(0.1) + interval(0.2), exact(0.1) + exact(0.2)));
static_assert(encloses(interval(0.1) - interval(0.2), exact(0.1) - exact(0.2)));
static_assert(encloses(interval(0.1) * interval(3.0), exact(0.1) * exact(3.0)));
static_assert(encloses(interval(1.0) / interval(3.0), Q(1, 3)));
static_assert(encloses(interval(0.7) / interval(-0.3), exact(0.7) / exact(-0.3)));
static_assert(encloses(interval(-1.5, 2.0) * interval(-0.25, 0.5), exact(-1.5) * exact(0.5)));

// Each enclosure is tight: one ulp on each side of the rounded result.
static_assert((interval(0.1) + interval(0.2)).hi() == next_up(0.1 + 0.2));
static_assert(next_up(1.0) - 1.0 == 0x1p-52 && 1.0 - next_down(1.0) == 0x1p-53);
static_assert(next_up(-0.0) == 0x1p-1074 && next_down(0.0) == -0x1p-1074);

// Three-valued comparisons: overlap is undecided, never a proof.
static_assert(certainly_less(interval(1.0, 2.0), interval(2.5, 3.0)) == certainty::holds);
static_assert(certainly_less(interval(1.0, 2.0), interval(1.5, 3.0)) == certainty::undecided);
static_assert(certainly_less(interval(3.0, 4.0), interval(1.0, 2.0)) == certainty::fails);
// The double 0.3 is below the exact sum of the doubles 0.1 and 0.2, but the enclosure of the sum
// reaches down to 0.3 itself: the comparison cannot be decided, and says so.
static_assert(exact(0.3) < exact(0.1) + exact(0.2));
static_assert(certainly_less(interval(0.3), interval(0.1) + interval(0.2)) == certainty::undecided);

// The largest finite double is a real number like any other. Beyond it lies the unbounded
// [DBL_MAX, inf]: what a long double such as 1e400L becomes, and what an overflowing product gives
// at run time (g++ refuses the overflow in constant evaluation). It holds many reals: never
// certainly equal, never ordered against another such interval (the false statements these twin
// are tests/compile_fail/interval_overflowed_* and certified_overflowed_literal_at_most).
constexpr double dbl_max = std::numeric_limits<double>::max();
constexpr double inf = std::numeric_limits<double>::infinity();
static_assert(certainly_equal(interval(dbl_max), interval(dbl_max)) == certainty::holds);
static_assert(certainly_less_equal(interval(dbl_max), interval(dbl_max)) == certainty::holds);
static_assert(certainly_less(interval(1e308), interval(dbl_max)) == certainty::holds);
constexpr interval above_max(1e400L), far_above_max(1e500L);
static_assert(above_max.lo() == dbl_max && above_max.hi() == inf && far_above_max == above_max);
static_assert(interval(-1e400L).lo() == -inf && interval(-1e400L).hi() == -dbl_max);
static_assert(certainly_less_equal(interval(dbl_max), above_max) == certainty::holds);
static_assert(certainly_less(interval(1e308), above_max) == certainty::holds);
static_assert(certainly_less(interval(-1e400L), interval(-1e308)) == certainty::holds);
static_assert(certainly_less_equal(far_above_max, above_max) == certainty::undecided);
static_assert(certainly_equal(above_max, far_above_max) == certainty::undecided);
static_assert(certainly_equal(interval(dbl_max, inf), interval(dbl_max, inf)) == certainty::undecided);
static_assert(certainly_equal(interval(-inf, inf), interval(-inf, inf)) == certainty::undecided);
// Each unbounded end on its own side: (-inf, 0] and [0, +inf) are sets of reals.
static_assert(certainly_less_equal(interval(-inf, 0.0), interval(0.0, inf)) == certainty::holds);
} // namespace

// Elementary functions in constant evaluation (values cross-checked against 100 digits at run
// time in tests/interval_tests.cpp): cos 1 = 0.5403..., e = 2.71828..., log 10000 = 9.2103...
#include "qkov/scalar/interval_functions.hpp"
namespace {
using namespace qkov;
static_assert(certainly_less(interval(0.5403), qkov::cos(interval(1.0))) == certainty::holds);
static_assert(certainly_less(qkov::cos(interval(1.0)), interval(0.5404)) == certainty::holds);
static_assert(certainly_less(interval(2.7182818284590), qkov::exp(interval(1.0))) == certainty::holds &&
              certainly_less(qkov::exp(interval(1.0)), interval(2.7182818284591)) == certainty::holds &&
              qkov::exp(interval(1.0)).width() < 1e-13);  // each interval operation widens by up to 2 ulps
static_assert(certainly_less(interval(9.2103), qkov::log(interval(10000.0))) == certainty::holds);
static_assert(qkov::sin(interval(4096.0)).width() < 1e-12);  // reduction by 2607 quarter turns stays tight
static_assert(certainly_less(qkov::sin(interval(3.0)), interval(0.1412)) == certainty::holds &&
              certainly_less(interval(0.1411), qkov::sin(interval(3.0))) == certainty::holds);  // sin 3 = 0.14112...
// sqrt: exact squares stay within one ulp on each side; 1.41421356237 < sqrt 2 < 1.41421356238.
static_assert(qkov::sqrt(interval(4.0)).contains(2.0) && qkov::sqrt(interval(4.0)).width() < 1e-15);
static_assert(certainly_less(interval(1.41421356237), qkov::sqrt(interval(2.0))) == certainty::holds &&
              certainly_less(qkov::sqrt(interval(2.0)), interval(1.41421356238)) == certainty::holds);
// exp near the ends of the double range: finite bounds up to DBL_MAX (exp(709.5) = 1.35e308,
// exp(709.78) = 0.9973 DBL_MAX), a positive lower bound down to the smallest subnormal
// (exp(-744) = 1.6 denorm_min), and [DBL_MAX, inf] beyond ln DBL_MAX = 709.7827...
static_assert(certainly_less(interval(1e308), qkov::exp(interval(709.5))) == certainty::holds);
static_assert(certainly_less(qkov::exp(interval(709.78)), interval(dbl_max)) == certainty::holds);
static_assert(certainly_less(interval(0.0), qkov::exp(interval(-744.0))) == certainty::holds);
static_assert(qkov::exp(interval(709.79)).lo() == dbl_max && qkov::exp(interval(709.79)).hi() == inf);
static_assert(qkov::exp(interval(-inf, 0.0)).lo() == 0.0 && qkov::exp(interval(0.0, inf)).hi() == inf);
// log next to 1 keeps the sign: log(1 - 2^-53) ~ -1.1e-16 and log(1 + 2^-52) ~ 2.2e-16.
static_assert(certainly_less(qkov::log(interval(1.0 - 0x1p-53)), interval(0.0)) == certainty::holds);
static_assert(certainly_less(interval(0.0), qkov::log(interval(1.0 + 0x1p-52))) == certainty::holds);
static_assert(certainly_less(interval(-0x1.0001p-53), qkov::log(interval(1.0 - 0x1p-53))) == certainty::holds);
// Functions of an unbounded interval stay enclosures: log of [DBL_MAX, inf] is [709.78..., inf]
// (log DBL_MAX = 709.782712893...), sqrt of it [1.34e154, inf].
static_assert(certainly_less(interval(709.78), qkov::log(above_max)) == certainty::holds &&
              qkov::log(above_max).hi() == inf);
static_assert(certainly_less_equal(qkov::log(far_above_max), qkov::log(above_max)) == certainty::undecided);
static_assert(certainly_less(interval(1.34e154), qkov::sqrt(above_max)) == certainty::holds &&
              qkov::sqrt(above_max).hi() == inf);
} // namespace
