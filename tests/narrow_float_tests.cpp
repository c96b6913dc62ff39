// bf16 and fp16 emulation: rounding from float/double against bit patterns worked out by hand
// (sign | exponent | mantissa written out in the comments), and the arithmetic's rounding.
#define BOOST_TEST_MODULE qkov narrow floats
#include <boost/test/unit_test.hpp>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "qkov/scalar/narrow_float.hpp"

using namespace qkov;

BOOST_AUTO_TEST_CASE(bf16_rounds_to_nearest_even)
{
    BOOST_TEST(bf16(1.0f).bits() == 0x3F80);  // 0 01111111 0000000
    BOOST_TEST(bf16(-2.0f).bits() == 0xC000);  // 1 10000000 0000000
    // 1 + 2^-8 lies halfway between 1 (mantissa 0, even) and 1 + 2^-7 (mantissa 1): down to 1.
    BOOST_TEST(bf16(1.0 + std::ldexp(1.0, -8)).bits() == 0x3F80);
    // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (mantissa 2, even): up.
    BOOST_TEST(bf16(1.0 + 3 * std::ldexp(1.0, -8)).bits() == 0x3F82);
    // Just above the halfway point rounds up.
    BOOST_TEST(bf16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -20)).bits() == 0x3F81);
    // pi as float is 0x40490FDB; the dropped half 0x0FDB is below 0x8000: truncate to 0x4049.
    BOOST_TEST(bf16(3.14159265358979).bits() == 0x4049);
    // 300 = 1.171875 * 2^8: exponent 135 = 0x87, mantissa 0.171875 * 128 = 22 -> 0 10000111 0010110.
    BOOST_TEST(bf16(300).bits() == 0x4396);
    // 301 = 300 + 1 is halfway to 302 (mantissa 23, odd): down to 300. Integers above 256 are lost.
    BOOST_TEST(bf16(301).bits() == 0x4396);
    BOOST_TEST(bf16(301).to_float() == 300.0f);
    // The largest finite bf16 is (2 - 2^-7) 2^127 = 0x7F7F; float's max is beyond the halfway point.
    BOOST_TEST(bf16(std::ldexp(2.0 - std::ldexp(1.0, -7), 127)).bits() == 0x7F7F);
    BOOST_TEST(bf16(std::numeric_limits<float>::max()).bits() == 0x7F80);  // +inf
    // 2^-130 is subnormal: mantissa 2^-130 / 2^-133 = 8.
    BOOST_TEST(bf16(std::ldexp(1.0, -130)).bits() == 0x0008);
    BOOST_TEST(bf16(-0.0).bits() == 0x8000);
    BOOST_TEST(bf16(std::nan("")).bits() == 0x7FC0);
}

BOOST_AUTO_TEST_CASE(fp16_rounds_to_nearest_even)
{
    BOOST_TEST(fp16(1.0).bits() == 0x3C00);     // 0 01111 0000000000
    BOOST_TEST(fp16(65504.0).bits() == 0x7BFF);  // the largest finite half
    // 65520 is halfway between 65504 (mantissa 0x3FF, odd) and 65536: rounds up, which overflows.
    BOOST_TEST(fp16(65520.0).bits() == 0x7C00);
    BOOST_TEST(fp16(65519.0).bits() == 0x7BFF);
    BOOST_TEST(fp16(std::ldexp(1.0, -24)).bits() == 0x0001);        // smallest subnormal
    BOOST_TEST(fp16(std::ldexp(1.0, -25)).bits() == 0x0000);        // halfway to 0 (even)
    BOOST_TEST(fp16(3 * std::ldexp(1.0, -26)).bits() == 0x0001);    // 0.75 of the smallest subnormal
    BOOST_TEST(fp16(std::ldexp(1023.0, -24)).bits() == 0x03FF);     // largest subnormal
    BOOST_TEST(fp16(std::ldexp(1.0, -14)).bits() == 0x0400);        // smallest normal
    // 1/3 = 1.0101...b * 2^-2: exponent 13, mantissa 0101010101 (then 01..., below half): 0x3555.
    BOOST_TEST(fp16(1.0 / 3).bits() == 0x3555);
    BOOST_TEST(fp16::from_bits(0x3555).to_float() == 0.333251953125f);
    // 0.1 = 1.1001100110011...b * 2^-4: exponent 11, mantissa 1001100110 (next bits 011..., below half): 0x2E66.
    BOOST_TEST(fp16(0.1).bits() == 0x2E66);
    // pi = 1.1001001000011111...b * 2: exponent 16, mantissa 1001001000 (next 011...): 0x4248.
    BOOST_TEST(fp16(3.14159265358979).bits() == 0x4248);
    BOOST_TEST(std::isinf(fp16::from_bits(0x7C00).to_float()));
    BOOST_TEST(std::isnan(fp16::from_bits(0x7E00).to_float()));
}

BOOST_AUTO_TEST_CASE(arithmetic_rounds_every_result)
{
    // 1 + 2^-8 in bf16: the exact sum is halfway, ties to even gives 1.
    BOOST_TEST((bf16(1.0) + bf16(std::ldexp(1.0, -8))).bits() == 0x3F80);
    // 2048 + 1 in fp16: 2049 is halfway between 2048 and 2050: 2048.
    BOOST_TEST((fp16(2048.0) + fp16(1.0)).to_float() == 2048.0f);
    BOOST_TEST((fp16(2048.0) + fp16(3.0)).to_float() == 2052.0f);  // 2051 halfway between 2050 (odd) and 2052
    // 3 * 0.333251953125 = 1 - 2^-12 exactly: halfway between 1 - 2^-11 (0x3BFF, odd) and 1 (even).
    BOOST_TEST((fp16(3.0) * fp16(1.0 / 3)).bits() == 0x3C00);
    // 5 * 0.333251953125 = 1.666259765625 = 1 + 682.25 * 2^-10: down to mantissa 682 = 1010101010 -> 0x3EAA.
    BOOST_TEST((fp16(5.0) * fp16(1.0 / 3)).bits() == 0x3EAA);
    BOOST_TEST((-bf16(1.0)).bits() == 0xBF80);
    BOOST_TEST((fp16(1.0) / fp16(0.0)).bits() == 0x7C00);
    BOOST_TEST((cos(fp16(0.0))).bits() == 0x3C00);
}

// Widening is exact for all 2^16 patterns of both formats: against the textbook value
// (-1)^s (1 + m / 2^M) 2^(e - bias), m 2^(1 - bias - M) for subnormals, infinity or NaN, and for
// bf16 also against the upper half of a float32.
template <class Narrow>
void check_every_pattern_widens_exactly()
{
    constexpr int M = Narrow::mantissa_bits, E = Narrow::exponent_bits, bias = (1 << (E - 1)) - 1;
    std::uint32_t wrong = 0;
    for (std::uint32_t bits = 0; bits < 0x10000u; ++bits) {
        const int e = static_cast<int>(bits >> M) & ((1 << E) - 1);
        const double m = bits & ((1u << M) - 1);
        const double sign = (bits & 0x8000u) ? -1.0 : 1.0;
        const float got = Narrow::from_bits(static_cast<std::uint16_t>(bits)).to_float();
        if (e == (1 << E) - 1) {
            if (m == 0) BOOST_TEST((got == static_cast<float>(sign * std::numeric_limits<double>::infinity())), "pattern " << bits);
            else BOOST_TEST(std::isnan(got), "pattern " << bits);
            continue;
        }
        const double expected = e == 0 ? sign * std::ldexp(m, 1 - bias - M) : sign * std::ldexp(1.0 + std::ldexp(m, -M), e - bias);
        if (static_cast<double>(got) != expected || std::signbit(got) != std::signbit(expected)) {
            if (wrong++ == 0) BOOST_ERROR("pattern " << bits << ": " << got << " != " << expected);
        }
    }
    BOOST_TEST(wrong == 0u);
}

BOOST_AUTO_TEST_CASE(every_fp16_pattern_widens_exactly) { check_every_pattern_widens_exactly<fp16>(); }
BOOST_AUTO_TEST_CASE(every_bf16_pattern_widens_exactly)
{
    check_every_pattern_widens_exactly<bf16>();
    std::uint32_t wrong = 0;
    for (std::uint32_t bits = 0; bits < 0x10000u; ++bits) {
        const float upper_half = std::bit_cast<float>(bits << 16);
        const float got = bf16::from_bits(static_cast<std::uint16_t>(bits)).to_float();
        if (std::isnan(upper_half)) BOOST_TEST(std::isnan(got));
        else if (std::bit_cast<std::uint32_t>(got) != bits << 16) wrong++;
    }
    BOOST_TEST(wrong == 0u, wrong << " bf16 patterns are not the upper half of their float");
}
