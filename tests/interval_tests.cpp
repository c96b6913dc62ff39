// Interval enclosures at run time against 100-digit Boost.Multiprecision values: every exact
// result of + - * / on random doubles (including extreme magnitudes and subnormals) lies inside
// its enclosure. Exact: products and quotients of doubles are exact or far within 100 digits.
#define BOOST_TEST_MODULE qkov interval
#include <boost/math/constants/constants.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>

#include "error_text.hpp"
#include "qkov/scalar/certified.hpp"
#include "qkov/scalar/interval.hpp"

using namespace qkov;
using big = boost::multiprecision::cpp_bin_float_100;

namespace {
double random_double(std::mt19937_64& gen)
{
    std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
    std::uniform_int_distribution<int> exponent(-1060, 1000);
    return std::ldexp(mantissa(gen), exponent(gen));
}

bool encloses(const interval& i, const big& x) { return big(i.lo()) <= x && x <= big(i.hi()); }
} // namespace

BOOST_AUTO_TEST_CASE(arithmetic_encloses_the_exact_result)
{
    std::mt19937_64 gen(42);
    int checked = 0;
    for (int k = 0; k < 200000; ++k) {
        const double a = random_double(gen), b = random_double(gen);
        const interval ia(a), ib(b);
        const big ea(a), eb(b);
        BOOST_REQUIRE(encloses(ia + ib, ea + eb));
        BOOST_REQUIRE(encloses(ia - ib, ea - eb));
        const interval p = ia * ib;
        if (std::isfinite(p.lo()) && std::isfinite(p.hi())) BOOST_REQUIRE(encloses(p, ea * eb));
        if (b != 0.0) BOOST_REQUIRE(encloses(ia / ib, ea / eb));  // 100 digits: a rounding far below one ulp
        ++checked;
    }
    BOOST_TEST_MESSAGE(checked << " random operations enclosed");
}

BOOST_AUTO_TEST_CASE(wide_intervals_enclose_all_products)
{
    std::mt19937_64 gen(7);
    std::uniform_real_distribution<double> u(-10, 10);
    for (int k = 0; k < 20000; ++k) {
        double a = u(gen), b = u(gen), c = u(gen), d = u(gen);
        if (a > b) std::swap(a, b);
        if (c > d) std::swap(c, d);
        const interval x(a, b), y(c, d);
        const double s = std::uniform_real_distribution<double>(a, b)(gen), t = std::uniform_real_distribution<double>(c, d)(gen);
        BOOST_REQUIRE(encloses(x * y, big(s) * big(t)));
        BOOST_REQUIRE(encloses(x - y, big(s) - big(t)));
    }
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused)
{
    BOOST_CHECK_THROW(static_cast<void>(interval(std::numeric_limits<double>::quiet_NaN())), std::domain_error);
    BOOST_CHECK_THROW(interval(2.0, 1.0), std::domain_error);
    BOOST_CHECK_THROW(interval(1.0) / interval(-1.0, 1.0), std::domain_error);
    const double inf = std::numeric_limits<double>::infinity();
    BOOST_CHECK_THROW(interval(0.0) * interval(1.0, inf), std::domain_error);  // 0 * inf has no enclosure
    BOOST_CHECK(next_up(inf) == inf && next_down(-inf) == -inf);
}

// An infinity is no real number: it never enters as a point, and only as the unbounded end on its
// own side. Overflow in qkov's arithmetic gives [DBL_MAX, inf], which holds every real above DBL_MAX.
BOOST_AUTO_TEST_CASE(infinities_enter_only_as_unbounded_ends)
{
    using limits = std::numeric_limits<double>;
    const double inf = limits::infinity();
    const auto refused = [](auto f) { return test::contains(test::error_of(f), "NaN or infinity where a finite real number is expected"); };
    BOOST_CHECK(refused([&] { static_cast<void>(interval(inf)); }));
    BOOST_CHECK(refused([&] { static_cast<void>(interval(-inf)); }));
    BOOST_CHECK(refused([&] { static_cast<void>(interval(static_cast<float>(inf))); }));
    BOOST_CHECK(refused([&] { static_cast<void>(interval(static_cast<long double>(inf))); }));
    BOOST_CHECK(refused([&] { static_cast<void>(interval(inf, inf)); }));
    BOOST_CHECK(refused([&] { static_cast<void>(interval(-inf, -inf)); }));
    BOOST_CHECK(refused([&] { static_cast<void>(interval(0.0, -inf)); }));
    BOOST_CHECK(refused([&] { static_cast<void>(certified(-inf, -inf)); }));
    BOOST_CHECK(refused([&] { static_cast<void>(certified(0.0, 1.0).is_at_most(-inf)); }));
    BOOST_CHECK(interval(-inf, inf).lo() == -inf && interval(-inf, inf).hi() == inf);

    // Overflow at run time: the unbounded enclosure, not a point at infinity.
    volatile double large = 1e308;  // volatile: the product is computed at run time, not folded
    const interval times_10 = interval(large) * interval(10.0), times_100 = interval(large) * interval(100.0);
    BOOST_CHECK(times_10.lo() == limits::max() && times_10.hi() == inf);
    BOOST_CHECK(certainly_less_equal(times_100, times_10) == certainty::undecided);
    BOOST_CHECK(certainly_equal(times_10, times_100) == certainty::undecided);
    BOOST_CHECK(certainly_less_equal(interval(limits::max()), times_10) == certainty::holds);
    BOOST_CHECK(certainly_equal(interval(limits::max()), interval(limits::max())) == certainty::holds);
    BOOST_CHECK(certified(-1e400L, -1e400L).is_at_most(-1e308) == certainty::holds);
    BOOST_CHECK(certified(-1e400L, -1e400L).is_at_most(-1e401L) == certainty::undecided);
    // Sums and differences of unbounded intervals stay unbounded on the right side.
    const interval difference = times_10 - times_100;
    BOOST_CHECK(difference.lo() == -inf && difference.hi() == inf);
    BOOST_CHECK((times_10 + times_100).lo() == limits::max());
    BOOST_CHECK((-times_10).lo() == -inf && (-times_10).hi() == -limits::max());
}

// --- Elementary functions -------------------------------------------------------------------
#include "qkov/scalar/interval_functions.hpp"

BOOST_AUTO_TEST_CASE(constants_enclose_their_100_digit_values)
{
    const big pi = boost::math::constants::pi<big>();
    const big ln_two = boost::math::constants::ln_two<big>();
    BOOST_CHECK(encloses(detail::half_pi, pi / 2));
    BOOST_CHECK(encloses(detail::half_pi_tail, pi / 2 - big(detail::half_pi_head)));
    BOOST_CHECK(encloses(detail::ln2, ln_two));
}

BOOST_AUTO_TEST_CASE(exp_log_sin_cos_enclose_100_digit_values)
{
    std::mt19937_64 gen(11);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    std::uniform_int_distribution<int> scale(-30, 25);
    int narrow = 0, total = 0;
    for (int k = 0; k < 20000; ++k) {
        const double x = std::ldexp(unit(gen), scale(gen));  // |x| from 1e-9 to 3e7
        const interval ix(x);
        const big bx(x);
        const interval s = qkov::sin(ix), c = qkov::cos(ix);
        BOOST_REQUIRE(encloses(s, boost::multiprecision::sin(bx)));
        BOOST_REQUIRE(encloses(c, boost::multiprecision::cos(bx)));
        if (std::abs(x) <= 4096) {  // the positions of a RoPE window: enclosures must be useful there
            if (s.width() < 1e-12 && c.width() < 1e-12) ++narrow;
            ++total;
        }
        if (std::abs(x) < 700) BOOST_REQUIRE(encloses(qkov::exp(ix), boost::multiprecision::exp(bx)));
        if (x > 0) BOOST_REQUIRE(encloses(qkov::log(ix), boost::multiprecision::log(bx)));
    }
    BOOST_TEST_MESSAGE(narrow << " of " << total << " sin/cos enclosures with |x| <= 4096 narrower than 1e-12");
    BOOST_CHECK(total > 1000 && narrow == total);  // useful, not merely sound
}

BOOST_AUTO_TEST_CASE(extreme_arguments)
{
    // Large angles: still enclosed (wider), never wrong.
    for (double x : {1e6, -1e9, 1e15, 1e300, 123456789.0}) {
        BOOST_REQUIRE(encloses(qkov::sin(interval(x)), boost::multiprecision::sin(big(x))));
        BOOST_REQUIRE(encloses(qkov::cos(interval(x)), boost::multiprecision::cos(big(x))));
    }
    // exp near overflow and underflow, log of subnormals, base^x of the RoPE schedule.
    BOOST_REQUIRE(encloses(qkov::exp(interval(709.0)), boost::multiprecision::exp(big(709.0))));
    BOOST_REQUIRE(encloses(qkov::exp(interval(-745.0)), boost::multiprecision::exp(big(-745.0))));
    BOOST_CHECK(qkov::exp(interval(710.0)).hi() == std::numeric_limits<double>::infinity());
    BOOST_REQUIRE(encloses(qkov::log(interval(4.9e-324)), boost::multiprecision::log(big(4.9e-324))));
    const interval theta_last = qkov::pow(interval(10000.0), interval(-62.0) / interval(64.0));
    BOOST_REQUIRE(encloses(theta_last, boost::multiprecision::pow(big(10000), big(-62) / 64)));
    BOOST_TEST_MESSAGE("10000^(-62/64) enclosed with relative width " << theta_last.width() / theta_last.lo());
    BOOST_CHECK(theta_last.width() / theta_last.lo() < 1e-13);
    // Intervals of arguments: every point's value is inside.
    const interval wide(0.5, 0.75);
    for (double t : {0.5, 0.6, 0.7, 0.75}) BOOST_REQUIRE(encloses(qkov::sin(wide), boost::multiprecision::sin(big(t))));
    BOOST_CHECK_THROW(qkov::log(interval(-1.0, 2.0)), std::domain_error);
    // An unbounded interval: log's upper bound is +inf, its lower bound still exact.
    const interval unbounded = qkov::log(interval(2.0, std::numeric_limits<double>::infinity()));
    BOOST_CHECK(unbounded.hi() == std::numeric_limits<double>::infinity());
    BOOST_REQUIRE(encloses(interval(unbounded.lo(), 1.0), boost::multiprecision::log(big(2))));
    const interval log_of_overflow = qkov::log(interval(1e400L));
    BOOST_CHECK(log_of_overflow.hi() == std::numeric_limits<double>::infinity());
    BOOST_REQUIRE(encloses(interval(log_of_overflow.lo(), 1000.0), boost::multiprecision::log(big(std::numeric_limits<double>::max()))));
}

// exp where exp(x) 2^k leaves the normal range: every bound encloses the 100-digit value, the
// upper bound is finite wherever exp(v) is clearly below DBL_MAX, and the lower bound positive
// wherever exp(v) is clearly above the smallest subnormal (it is then rounded down, not stepped
// one subnormal below the nearest, which lost the positive bound to 0).
BOOST_AUTO_TEST_CASE(exp_near_overflow_and_underflow_is_enclosed_and_decides)
{
    using limits = std::numeric_limits<double>;
    std::mt19937_64 gen(27);
    std::uniform_real_distribution<double> overflow_edge(705.0, 712.0), underflow_edge(-750.0, -705.0);
    for (int n = 0; n < 4000; ++n) {
        const double v = n % 2 ? overflow_edge(gen) : underflow_edge(gen);
        const interval e = qkov::exp(interval(v));
        const big exact = boost::multiprecision::exp(big(v));
        BOOST_TEST_CONTEXT("v = " << v) {
            BOOST_REQUIRE(big(e.lo()) <= exact);
            BOOST_REQUIRE(e.hi() == limits::infinity() || exact <= big(e.hi()));
            if (exact < big(limits::max()) * big(0.999)) BOOST_REQUIRE(e.hi() < limits::infinity());
            if (exact > big(limits::denorm_min()) * big(1.001)) BOOST_REQUIRE(e.lo() > 0.0);
            if (exact > big(limits::min()) && exact < big(limits::max()) / 2) BOOST_REQUIRE(e.width() / e.lo() < 1e-12);
        }
    }
    BOOST_CHECK(certainly_less(interval(1e308), qkov::exp(interval(709.5))) == certainty::holds);
    BOOST_CHECK(certainly_less(qkov::exp(interval(709.78)), interval(limits::max())) == certainty::holds);
    BOOST_CHECK(certainly_less(interval(0.0), qkov::exp(interval(-744.0))) == certainty::holds);
    // exp(-745) = 0.57 denorm_min: no positive double lies below it, so 0 is its best lower bound.
    BOOST_CHECK(qkov::exp(interval(-745.0)).lo() == 0.0 && qkov::exp(interval(-745.0)).hi() == limits::denorm_min());
    BOOST_CHECK(qkov::exp(interval(710.0)).lo() == limits::max() && qkov::exp(interval(710.0)).hi() == limits::infinity());
    BOOST_CHECK(qkov::exp(interval(-limits::infinity(), -800.0)).lo() == 0.0);
    BOOST_CHECK(qkov::exp(interval(-limits::infinity(), -800.0)).hi() == limits::denorm_min());
}

// log next to 1: the enclosure's width is relative to log x itself, so the sign is decided.
BOOST_AUTO_TEST_CASE(log_near_one_keeps_relative_accuracy)
{
    std::mt19937_64 gen(27);
    std::uniform_int_distribution<int> ulps(1, 1 << 20);
    for (int n = 0; n < 2000; ++n) {
        const double x = n % 2 ? 1.0 + ulps(gen) * 0x1p-52 : 1.0 - ulps(gen) * 0x1p-53;
        const interval l = qkov::log(interval(x));
        BOOST_TEST_CONTEXT("x = 1 + " << x - 1.0) {
            BOOST_REQUIRE(encloses(l, boost::multiprecision::log(big(x))));
            BOOST_REQUIRE(certainly_less(l, interval(0.0)) == (x < 1.0 ? certainty::holds : certainty::fails));
            BOOST_REQUIRE(l.width() < 1e-14 * std::abs(l.lo()));
        }
    }
    BOOST_CHECK(certainly_less(qkov::log(interval(1.0 - 0x1p-53)), interval(0.0)) == certainty::holds);
    BOOST_CHECK(qkov::log(interval(1.0)).contains(0.0) && qkov::log(interval(1.0)).width() < 1e-300);
}

BOOST_AUTO_TEST_CASE(intervals_of_arguments_enclose_every_point)
{
    // Wide arguments (blocks of positions times an angle): the value at every sampled point of
    // the interval, endpoints included, lies in the enclosure.
    std::mt19937_64 gen(5);
    std::uniform_real_distribution<double> start(-5000.0, 5000.0);
    std::uniform_int_distribution<int> width_exponent(-40, 3);
    for (int k = 0; k < 3000; ++k) {
        const double a = start(gen), w = std::ldexp(1.0, width_exponent(gen));
        const interval x(a, a + w);
        const interval s = qkov::sin(x), c = qkov::cos(x), e = qkov::exp(x / interval(1000.0));
        for (int j = 0; j <= 16; ++j) {
            const big t = big(x.lo()) + (big(x.hi()) - big(x.lo())) * j / 16;
            BOOST_REQUIRE(encloses(s, boost::multiprecision::sin(t)));
            BOOST_REQUIRE(encloses(c, boost::multiprecision::cos(t)));
            BOOST_REQUIRE(encloses(e, boost::multiprecision::exp(t / 1000)));
        }
    }
}

BOOST_AUTO_TEST_CASE(sine_of_small_angles_keeps_relative_accuracy)
{
    for (double x : {1e-4, 1e-10, 1e-30, 1e-300}) {
        const interval s = qkov::sin(interval(x));
        BOOST_REQUIRE(encloses(s, boost::multiprecision::sin(big(x))));
        BOOST_CHECK_LT(s.width() / x, 1e-14);
    }
}

BOOST_AUTO_TEST_CASE(integers_beyond_2_to_the_53_are_enclosed_not_rounded)
{
    const std::int64_t exact = (std::int64_t{1} << 53) - 1, inexact = (std::int64_t{1} << 60) + 1;
    BOOST_CHECK(interval(exact).lo() == interval(exact).hi());
    BOOST_REQUIRE(encloses(interval(inexact), big(inexact)));
    BOOST_CHECK(interval(inexact).lo() < interval(inexact).hi());
    BOOST_REQUIRE(encloses(interval(-inexact), big(-inexact)));
    const std::uint64_t huge = ~std::uint64_t{0};
    BOOST_REQUIRE(encloses(interval(huge), big(huge)));
}

BOOST_AUTO_TEST_CASE(sqrt_encloses_100_digit_roots)
{
    std::mt19937_64 gen(3);
    for (int k = 0; k < 20000; ++k) {
        const double x = std::abs(random_double(gen));
        BOOST_REQUIRE(encloses(qkov::sqrt(interval(x)), boost::multiprecision::sqrt(big(x))));
    }
    BOOST_CHECK(qkov::sqrt(interval(0.0)).lo() == 0.0);
    // The ends of the range, where the squares of candidate roots would underflow or overflow:
    // each root enclosed, and no wider than four ulps of the root.
    using limits = std::numeric_limits<double>;
    for (const double x : {limits::denorm_min(), 3 * limits::denorm_min(), 1e-310, limits::min(),
                           0.25, 1.0, 4.0, 1e300, limits::max()}) {
        const interval root = qkov::sqrt(interval(x));
        BOOST_TEST_CONTEXT("x = " << x) {
            BOOST_REQUIRE(encloses(root, boost::multiprecision::sqrt(big(x))));
            BOOST_CHECK_LE(root.width(), 4 * (qkov::next_up(root.lo()) - root.lo()));
        }
    }
    BOOST_CHECK(qkov::sqrt(interval(limits::max(), limits::infinity())).hi() == limits::infinity());
    BOOST_REQUIRE(encloses(qkov::sqrt(interval(2.0, 3.0)), boost::multiprecision::sqrt(big(2))));
    BOOST_REQUIRE(encloses(qkov::sqrt(interval(2.0, 3.0)), boost::multiprecision::sqrt(big(3))));
    BOOST_CHECK_THROW(qkov::sqrt(interval(-1e-300, 1.0)), std::domain_error);
}

BOOST_AUTO_TEST_CASE(powers_near_underflow_and_of_the_rope_schedules)
{
    // base^x for bases and exponents of RoPE schedules, and results down to the subnormal range.
    std::mt19937_64 gen(9);
    std::uniform_real_distribution<double> exponent(-1.0, 0.0);
    for (double base : {10.0, 10000.0, 500000.0, 1e6}) {
        for (int k = 0; k < 2000; ++k) {
            const double x = exponent(gen);
            BOOST_REQUIRE(encloses(qkov::pow(interval(base), interval(x)), boost::multiprecision::pow(big(base), big(x))));
        }
    }
    for (double x : {-300.0, -307.5, -310.0, -323.0}) {  // 10^x: normal, then subnormal results
        BOOST_REQUIRE(encloses(qkov::pow(interval(10.0), interval(x)), boost::multiprecision::pow(big(10), big(x))));
    }
}
// Numbers wider than double enter as enclosures, at run time as in constant evaluation: random
// long doubles and __int128 values lie inside their intervals (checked against 100-digit values),
// and the interval is a point exactly when the number is a double.
BOOST_AUTO_TEST_CASE(wide_numbers_are_enclosed)
{
    std::mt19937_64 gen(15);
    std::uniform_int_distribution<int> shift(0, 120);
    for (int trial = 0; trial < 20000; ++trial) {
        const long double x = static_cast<long double>(random_double(gen)) * (1.0L + std::ldexp(1.0L, -60) * (trial % 7));
        const interval ix(x);
        BOOST_REQUIRE(encloses(ix, big(x)));
        BOOST_REQUIRE_EQUAL(ix.lo() == ix.hi(), static_cast<long double>(static_cast<double>(x)) == x);
        if (ix.lo() != ix.hi()) BOOST_REQUIRE(next_up(ix.lo()) == ix.hi());  // the tightest enclosure

        const __int128 k = (static_cast<__int128>(gen()) << 64 | gen()) >> shift(gen);
        const interval ik(k);
        big exact = big(static_cast<std::uint64_t>(k >> 64)) * big(std::ldexp(1.0, 64)) + big(static_cast<std::uint64_t>(k));
        if (k < 0) exact -= big(std::ldexp(1.0, 128));
        BOOST_REQUIRE(encloses(ik, exact));
    }
    BOOST_CHECK(interval(static_cast<__int128>(1) << 100).lo() == 0x1p100);
    BOOST_CHECK(interval(static_cast<__int128>(1) << 100).hi() == 0x1p100);
    BOOST_CHECK_THROW(static_cast<void>(interval(std::numeric_limits<long double>::quiet_NaN())), std::domain_error);
}

BOOST_AUTO_TEST_CASE(equality_of_reals_is_certainly_equal_not_operator_equals)
{
    // Two different reals, one enclosure: == says the enclosures match, certainly_equal does not decide.
    const interval near_one(1.0, next_up(1.0));
    BOOST_CHECK(near_one == interval(1.0, next_up(1.0)));
    BOOST_CHECK(certainly_equal(near_one, near_one) == certainty::undecided);
    BOOST_CHECK(certainly_equal(interval(0.5), interval(0.5)) == certainty::holds);
    BOOST_CHECK(certainly_equal(interval(0.5), interval(0.75, 1.0)) == certainty::fails);
    BOOST_CHECK(interval(0.0).is_zero() && !interval(0.0, 1e-300).is_zero());
}
