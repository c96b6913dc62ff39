// Interval enclosures at run time against 100-digit Boost.Multiprecision values: every exact
// result of + - * / on random doubles (including extreme magnitudes and subnormals) lies inside
// its enclosure. Exact: products and quotients of doubles are exact or far within 100 digits.
#define BOOST_TEST_MODULE qkov interval
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

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
    BOOST_CHECK_THROW(interval(std::numeric_limits<double>::quiet_NaN()), std::domain_error);
    BOOST_CHECK_THROW(interval(2.0, 1.0), std::domain_error);
    BOOST_CHECK_THROW(interval(1.0) / interval(-1.0, 1.0), std::domain_error);
    const double inf = std::numeric_limits<double>::infinity();
    BOOST_CHECK_THROW(interval(0.0) * interval(inf), std::domain_error);  // 0 * inf has no enclosure
    BOOST_CHECK(next_up(inf) == inf && next_down(-inf) == -inf);
}
