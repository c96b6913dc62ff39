// Certified bounds at run time against brute force in 50-digit Boost.Multiprecision: the
// minimum and the sum over integer ranges, the previous-token head's gap and attention mass
// (R5, R6), and outward-rounded decimal printing.
#define BOOST_TEST_MODULE qkov certified
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "qkov/circuits/previous_token_bounds.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/scalar/certified.hpp"
#include "qkov/scalar/certified_io.hpp"
#include "qkov/scalar/integer_range_bounds.hpp"
#include "qkov/scalar/interval_functions.hpp"

using namespace qkov;
using big = boost::multiprecision::cpp_bin_float_50;

namespace {
bool encloses(const certified& c, const big& x) { return big(c.lower) <= x && x <= big(c.upper); }

// g(k) = 32 - sum_l cos(k theta_l), theta_l = 10000^(-l/32), in 50 digits.
std::vector<big> brute_force_gaps(int last)
{
    std::vector<big> theta, gaps(static_cast<std::size_t>(last + 1));
    for (int l = 0; l < 32; ++l) theta.push_back(boost::multiprecision::pow(big(10000), big(-l) / 32));
    for (int k = 1; k <= last; ++k) {
        big sum = 0;
        for (const big& t : theta) sum += boost::multiprecision::cos(k * t);
        gaps[static_cast<std::size_t>(k)] = 32 - sum;
    }
    return gaps;
}

constexpr rope_layout layout = interleaved_layout(64);
const numeric_angles<interval, 32> angles{standard_theta<interval, 32>(10000.0)};
} // namespace

BOOST_AUTO_TEST_CASE(minimum_over_a_range_encloses_the_brute_force_minimum)
{
    auto f = [](const interval& k) { return cos(k * interval(0.7)) + k * interval(1e-4); };
    big truth = 10;
    for (int k = 1; k <= 3000; ++k) truth = std::min(truth, big(boost::multiprecision::cos(big(k) * big(0.7)) + big(k) * big(1e-4)));
    const certified tight = certified_minimum(f, 1, 3000);
    BOOST_REQUIRE(encloses(tight, truth));
    BOOST_CHECK_LT(tight.upper - tight.lower, 1e-12);
    // Out of budget: wider, still an enclosure.
    const certified rough = certified_minimum(f, 1, 3000, 3);
    BOOST_REQUIRE(encloses(rough, truth));
    BOOST_CHECK_GT(rough.upper - rough.lower, tight.upper - tight.lower);
}

BOOST_AUTO_TEST_CASE(sum_over_a_range_encloses_the_brute_force_sum)
{
    auto f = [](const interval& k) { return exp(-k / interval(50.0)) * (interval(1.0) + interval(0.5) * sin(k)); };
    big truth = 0;
    for (int k = 1; k <= 2000; ++k) truth += boost::multiprecision::exp(-big(k) / 50) * (1 + big(0.5) * boost::multiprecision::sin(big(k)));
    for (double relative : {1e-2, 1e-4}) {
        const certified sum = certified_sum(f, 1, 2000, relative);
        BOOST_REQUIRE(encloses(sum, truth));
        // Validation of the stopping rule (decided on double estimates): within twice the request.
        BOOST_CHECK_LT(sum.upper - sum.lower, 2 * relative * sum.lower);
    }
    BOOST_REQUIRE(encloses(certified_sum(f, 1, 2000, 1e-4, 5), truth));  // out of budget
}

BOOST_AUTO_TEST_CASE(bad_ranges_are_refused)
{
    auto f = [](const interval& k) { return k; };
    BOOST_CHECK_THROW(certified_minimum(f, 5, 4), std::invalid_argument);
    BOOST_CHECK_THROW(certified_sum(f, 0, std::int64_t{1} << 54, 1e-3), std::invalid_argument);
    BOOST_CHECK_THROW(certified_previous_token_mass<layout>(angles, interval(1), 1), std::invalid_argument);
    BOOST_CHECK_THROW(certified_previous_token_mass<layout>(angles, interval(0), 20), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(previous_token_gap_and_mass_enclose_brute_force_values)
{
    const auto gaps = brute_force_gaps(4096);
    big smallest = 100;
    for (int k = 1; k <= 4096; ++k) smallest = std::min(smallest, gaps[static_cast<std::size_t>(k)]);
    const certified gap = certified_minimum_gap<layout>(angles, 1, 4096);
    BOOST_REQUIRE(encloses(gap, smallest));
    BOOST_TEST_MESSAGE("min gap over 1..4096: " << gap << ", 50-digit brute force " << smallest.str(15));

    for (int alpha : {1, 10, 100}) {
        for (int window : {20, 2048}) {
            // The last row: the query's own token (k = -1, gap g(1)) and k = 1 .. window - 2.
            big sum = boost::multiprecision::exp(-alpha * gaps[1]);
            for (int k = 1; k <= window - 2; ++k) sum += boost::multiprecision::exp(-alpha * gaps[static_cast<std::size_t>(k)]);
            const auto bound = certified_previous_token_mass<layout>(angles, interval(alpha), window);
            BOOST_TEST_CONTEXT("alpha " << alpha << ", window " << window)
            {
                BOOST_REQUIRE(encloses(bound.mass, 1 / (1 + sum)));
                BOOST_REQUIRE(encloses(bound.off_previous_mass, sum / (1 + sum)));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(decimals_are_rounded_outwards)
{
    // 0.1 is 0.1000000000000000055511151231257827... as a double.
    BOOST_CHECK_EQUAL(to_decimal(0.1, 12, decimal_rounding::down), "1.00000000000e-1");
    BOOST_CHECK_EQUAL(to_decimal(0.1, 12, decimal_rounding::up), "1.00000000001e-1");
    BOOST_CHECK_EQUAL(to_decimal(-0.1, 12, decimal_rounding::down), "-1.00000000001e-1");
    BOOST_CHECK_EQUAL(to_decimal(-0.1, 12, decimal_rounding::up), "-1.00000000000e-1");
    BOOST_CHECK_EQUAL(to_decimal(2.5, 3, decimal_rounding::up), "2.50");  // exact: nothing to round
    BOOST_CHECK_EQUAL(to_decimal(9.9999, 3, decimal_rounding::up), "1.00e1");
    BOOST_CHECK_EQUAL(to_decimal(9.9999, 3, decimal_rounding::down), "9.99");
    BOOST_CHECK_EQUAL(to_decimal(1.8181e-47, 4, decimal_rounding::up), "1.819e-47");
    BOOST_CHECK_THROW(to_decimal(0.5, 0, decimal_rounding::up), std::invalid_argument);
}
