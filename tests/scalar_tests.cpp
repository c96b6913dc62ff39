// Exact scalars at run time: checked integers, rationals (checked against Boost's cpp_rational as
// an independent oracle), Gaussian rationals, and the Boost 256-bit integer parameter.
#define BOOST_TEST_MODULE qkov scalar
#include <boost/multiprecision/cpp_int.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "qkov/scalar/boost_integer.hpp"
#include "qkov/scalar/checked.hpp"
#include "qkov/scalar/gaussian.hpp"
#include "qkov/scalar/rational.hpp"

using namespace qkov;

namespace {
bool says_overflow(const std::overflow_error& e) { return std::string(e.what()).find("overflow") != std::string::npos; }
} // namespace

BOOST_AUTO_TEST_SUITE(checked_integers)

BOOST_AUTO_TEST_CASE(int64_overflow_throws_and_says_overflow)
{
    const checked_int64 max = std::numeric_limits<std::int64_t>::max();
    const checked_int64 min = std::numeric_limits<std::int64_t>::min();
    BOOST_CHECK_EXCEPTION(max + checked_int64(1), std::overflow_error, says_overflow);
    BOOST_CHECK_EXCEPTION(min - checked_int64(1), std::overflow_error, says_overflow);
    BOOST_CHECK_EXCEPTION(max * checked_int64(2), std::overflow_error, says_overflow);
    BOOST_CHECK_EXCEPTION(-min, std::overflow_error, says_overflow);
    BOOST_CHECK_EXCEPTION(min / checked_int64(-1), std::overflow_error, says_overflow);
    BOOST_CHECK(max - checked_int64(1) + checked_int64(1) == max);  // the boundary itself is fine
}

BOOST_AUTO_TEST_CASE(int128_overflow_throws)
{
    const checked_int128 two_to_100 = static_cast<__int128>(1) << 100;
    BOOST_CHECK_EXCEPTION(two_to_100 * two_to_100, std::overflow_error, says_overflow);
    BOOST_CHECK((two_to_100 * checked_int128(std::int64_t{1} << 26)).value() == static_cast<__int128>(1) << 126);
}

BOOST_AUTO_TEST_CASE(narrowing_conversions_are_checked)
{
    BOOST_CHECK_EXCEPTION(static_cast<void>(checked_int64(std::numeric_limits<std::uint64_t>::max())), std::overflow_error, says_overflow);
    BOOST_CHECK_EXCEPTION(checked<std::int32_t>(std::int64_t{1} << 40), std::overflow_error, says_overflow);
    BOOST_CHECK(checked_int64(std::uint64_t{12}).value() == 12);
}

BOOST_AUTO_TEST_CASE(division_by_zero_throws)
{
    BOOST_CHECK_THROW(checked_int64(1) / checked_int64(0), std::domain_error);
    BOOST_CHECK_THROW(checked_int64(1) % checked_int64(0), std::domain_error);
}

BOOST_AUTO_TEST_CASE(agrees_with_native_arithmetic_in_range)
{
    std::mt19937_64 gen(7);
    std::uniform_int_distribution<std::int64_t> dist(-(std::int64_t{1} << 30), std::int64_t{1} << 30);
    for (int k = 0; k < 10000; ++k) {
        const std::int64_t a = dist(gen), b = dist(gen) | 1;
        BOOST_REQUIRE((checked_int64(a) + checked_int64(b)).value() == a + b);
        BOOST_REQUIRE((checked_int64(a) * checked_int64(b)).value() == a * b);
        BOOST_REQUIRE((checked_int64(a) / checked_int64(b)).value() == a / b);
        BOOST_REQUIRE((checked_int64(a) % checked_int64(b)).value() == a % b);
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(rationals)

using boost::multiprecision::cpp_rational;

template <class Q>
bool matches(const Q& q, const cpp_rational& oracle)
{
    using boost::multiprecision::cpp_int;
    return cpp_int(static_cast<long long>(q.num().value())) == numerator(oracle) &&
           cpp_int(static_cast<long long>(q.den().value())) == denominator(oracle);
}

BOOST_AUTO_TEST_CASE(normalized_and_equal_to_an_independent_oracle)
{
    std::mt19937_64 gen(11);
    std::uniform_int_distribution<std::int64_t> dist(-999, 999);
    for (int k = 0; k < 20000; ++k) {
        const std::int64_t a = dist(gen), b = dist(gen) | 1, c = dist(gen), e = dist(gen) | 1;
        const rational64 x(a, b), y(c, e);
        const cpp_rational ox(a, b), oy(c, e);
        BOOST_REQUIRE(matches(x, ox));
        BOOST_REQUIRE(x.den() > checked_int64(0));
        BOOST_REQUIRE(matches(x + y, ox + oy));
        BOOST_REQUIRE(matches(x - y, ox - oy));
        BOOST_REQUIRE(matches(x * y, ox * oy));
        if (c != 0) BOOST_REQUIRE(matches(x / y, ox / oy));
        BOOST_REQUIRE((x < y) == (ox < oy));
        BOOST_REQUIRE((x == y) == (ox == oy));
    }
}

// Comparisons are exact across the whole range: cross products that do not fit are never formed
// (Q(2^63 - 1, 3) < Q(2^63 - 3, 2) used to overflow). Checked against the unbounded oracle on
// full-width numerators and denominators, near-equal pairs, and 256-bit rationals
// (which always take the route by continued fractions).
BOOST_AUTO_TEST_CASE(comparisons_never_overflow)
{
    // -max, not INT64_MIN: a rational's numerator must be negatable (gcd takes its magnitude).
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
    BOOST_CHECK(rational64(max - 2, 2) < rational64(max, 2));
    BOOST_CHECK(rational64(max, 3) < rational64(max, 2));
    BOOST_CHECK(rational64(max, max - 1) < rational64(max - 1, max - 2));  // 1 + 1/(m-1) < 1 + 1/(m-2)
    BOOST_CHECK(rational64(-max, 3) < rational64(-max, 5));
    BOOST_CHECK(rational64(-max, 5) > rational64(-max + 1, 3));
    const auto check = [](std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t e) {
        const rational64 x(a, b), y(c, e);
        const cpp_rational ox(a, b), oy(c, e);
        BOOST_REQUIRE_MESSAGE((x < y) == (ox < oy) && (x > y) == (ox > oy) && (x <= y) == (ox <= oy),
                              a << "/" << b << " vs " << c << "/" << e);
    };
    std::mt19937_64 gen(27);
    std::uniform_int_distribution<std::int64_t> any(-max, max), small(-3, 3);
    for (int k = 0; k < 20000; ++k) {
        const std::int64_t a = any(gen), b = any(gen) | 1, c = any(gen), e = any(gen) | 1;
        check(a, b, c, e);
        // Near-equal pairs, which need several steps of the continued fractions.
        const std::int64_t c_near = a / 2 + small(gen), e_near = b / 2 + small(gen);
        if (e_near != 0) check(a, b, c_near, e_near);
    }
    // Consecutive Fibonacci ratios: the longest continued fractions at this width.
    std::int64_t f0 = 1, f1 = 1;
    while (f1 < max / 2) {
        const std::int64_t f2 = f0 + f1;
        check(f1, f0, f2, f1);
        check(-f2, f1, -f1, f0);
        f0 = f1, f1 = f2;
    }
    const checked_int256 two_to_200 = checked_int256(1) << 200;
    // 1 + 2^-200 < 1 + 1/(2^200 - 1): the cross products need 400 bits.
    BOOST_CHECK(rational256(two_to_200 + checked_int256(1), two_to_200) < rational256(two_to_200, two_to_200 - checked_int256(1)));
    BOOST_CHECK(rational256(checked_int256(-3), two_to_200) < rational256(checked_int256(-1), two_to_200 - checked_int256(1)));
}

BOOST_AUTO_TEST_CASE(overflow_and_division_by_zero)
{
    const rational64 tiny(std::int64_t{1}, std::int64_t{1} << 40);
    BOOST_CHECK_EXCEPTION(tiny * tiny, std::overflow_error, says_overflow);
    BOOST_CHECK_THROW(rational64(1) / rational64(0), std::domain_error);
    BOOST_CHECK_THROW(rational64(1, 0), std::domain_error);
    BOOST_CHECK_THROW((void)rational64(0).reciprocal(), std::domain_error);
}

BOOST_AUTO_TEST_CASE(boost_256_bit_integers_go_where_128_bits_overflow)
{
    const checked_int256 two_to_100 = checked_int256(1) << 100;
    const rational256 x(checked_int256(1), two_to_100);
    const rational256 square = x * x;  // 2^-200: beyond __int128
    BOOST_CHECK(square.den() == (checked_int256(1) << 200));
    BOOST_CHECK(square * rational256(checked_int256(1) << 200) == rational256(1));
    BOOST_CHECK_THROW(square * square, std::overflow_error);  // 2^-400 leaves 256 bits
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(gaussian_rationals)

using G = gaussian<rational64>;

BOOST_AUTO_TEST_CASE(field_laws_on_samples)
{
    BOOST_CHECK(G::i() * G::i() == G(-1));
    std::mt19937_64 gen(3);
    std::uniform_int_distribution<std::int64_t> dist(-30, 30);
    for (int k = 0; k < 2000; ++k) {
        const G z(rational64(dist(gen), 7), rational64(dist(gen), 5));
        const G w(rational64(dist(gen), 3), rational64(dist(gen) | 1, 2));
        BOOST_REQUIRE((z * w) / w == z);
        BOOST_REQUIRE((z * w).norm_squared() == z.norm_squared() * w.norm_squared());
        BOOST_REQUIRE((z * w).conj() == z.conj() * w.conj());
        BOOST_REQUIRE((z + w) - w == z);
    }
    BOOST_CHECK_THROW(G(1) / G(0), std::domain_error);
}

BOOST_AUTO_TEST_SUITE_END()
