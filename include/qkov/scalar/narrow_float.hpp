// Emulated 16-bit floating point: bfloat16 and IEEE half (fp16), as scalar types.
//
// A narrow_float stores the 16-bit pattern. Each operation computes in float and rounds the
// result to the narrow format, round to nearest, ties to even: this is what deep-learning
// libraries do for element-wise bf16/fp16 arithmetic on CPUs. For + - * / of two narrow operands
// the float result rounded again equals the correctly rounded narrow result, because float has
// 24 significand bits >= 2p + 2 for both formats (p = 8 for bf16, p = 11 for fp16), the condition
// under which double rounding is harmless for the basic operations. cos, sin and pow also go
// through float (the value is then correctly rounded from float's result, not from the exact one).
//
// The rounding itself is written once for every format: scale |x| so that one unit in the last
// place of the target format is 1, round to nearest even with std::nearbyint (the default
// rounding mode), scale back. Subnormals use the quantum of the smallest normal binade; a
// magnitude that rounds to 2^(emax + 1) or beyond overflows to infinity.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>

namespace qkov {

/// A binary floating-point format with 1 sign bit, ExponentBits and MantissaBits (stored, without
/// the implicit leading 1), ExponentBits + MantissaBits == 15.
template <int ExponentBits, int MantissaBits>
class narrow_float {
    static_assert(ExponentBits + MantissaBits == 15, "qkov: narrow_float is a 16-bit format");

public:
    static constexpr int exponent_bits = ExponentBits;
    static constexpr int mantissa_bits = MantissaBits;
    static constexpr int bias = (1 << (ExponentBits - 1)) - 1;
    static constexpr int min_exponent = 1 - bias;  ///< of the smallest normal number
    static constexpr int max_exponent = bias;      ///< of the largest finite number

    constexpr narrow_float() = default;
    /// Rounds to nearest, ties to even (one rounding from the double value).
    template <class A>
        requires std::is_arithmetic_v<A>
    explicit narrow_float(A value) : bits_(round_to_bits(static_cast<double>(value)))
    {
    }

    static constexpr narrow_float from_bits(std::uint16_t bits)
    {
        narrow_float x;
        x.bits_ = bits;
        return x;
    }
    [[nodiscard]] constexpr std::uint16_t bits() const { return bits_; }

    /// The exact value (every narrow value is a float). Normal numbers and infinities are re-spelt
    /// bit by bit as a float (the exponent range fits float's), which keeps reading a model file a
    /// tight loop; subnormals scale the mantissa by a power of two, exact as well.
    [[nodiscard]] float to_float() const
    {
        static_assert(ExponentBits <= 8, "qkov: the narrow exponent range must fit float's");
        const std::uint32_t sign = static_cast<std::uint32_t>(bits_ >> 15) << 31;
        const int exponent_field = (bits_ >> MantissaBits) & ((1 << ExponentBits) - 1);
        const std::uint32_t mantissa = bits_ & ((1u << MantissaBits) - 1);
        if (exponent_field == (1 << ExponentBits) - 1)
            return std::bit_cast<float>(sign | (mantissa == 0 ? 0x7F800000u : 0x7FC00000u));  // infinity, or the quiet NaN
        if (exponent_field == 0) {
            const float magnitude = std::ldexp(static_cast<float>(mantissa), min_exponent - MantissaBits);
            return sign != 0 ? -magnitude : magnitude;
        }
        const auto float_exponent = static_cast<std::uint32_t>(exponent_field - bias + 127);
        return std::bit_cast<float>(sign | float_exponent << 23 | mantissa << (23 - MantissaBits));
    }
    explicit operator float() const { return to_float(); }
    explicit operator double() const { return to_float(); }

    friend narrow_float operator+(narrow_float a, narrow_float b) { return narrow_float(a.to_float() + b.to_float()); }
    friend narrow_float operator-(narrow_float a, narrow_float b) { return narrow_float(a.to_float() - b.to_float()); }
    friend narrow_float operator*(narrow_float a, narrow_float b) { return narrow_float(a.to_float() * b.to_float()); }
    friend narrow_float operator/(narrow_float a, narrow_float b) { return narrow_float(a.to_float() / b.to_float()); }
    friend constexpr narrow_float operator-(narrow_float a) { return from_bits(static_cast<std::uint16_t>(a.bits_ ^ 0x8000u)); }
    narrow_float& operator+=(narrow_float b) { return *this = *this + b; }
    narrow_float& operator-=(narrow_float b) { return *this = *this - b; }
    narrow_float& operator*=(narrow_float b) { return *this = *this * b; }
    narrow_float& operator/=(narrow_float b) { return *this = *this / b; }
    friend bool operator==(narrow_float a, narrow_float b) { return a.to_float() == b.to_float(); }  // -0 == +0, NaN != NaN
    friend bool operator<(narrow_float a, narrow_float b) { return a.to_float() < b.to_float(); }

    friend narrow_float cos(narrow_float x) { return narrow_float(std::cos(x.to_float())); }
    friend narrow_float sin(narrow_float x) { return narrow_float(std::sin(x.to_float())); }
    friend narrow_float pow(narrow_float x, narrow_float y) { return narrow_float(std::pow(x.to_float(), y.to_float())); }

private:
    static std::uint16_t round_to_bits(double x)
    {
        const std::uint16_t sign = std::signbit(x) ? 0x8000u : 0u;
        constexpr std::uint16_t exponent_all_ones = ((1u << ExponentBits) - 1) << MantissaBits;
        if (std::isnan(x)) return exponent_all_ones | (1u << (MantissaBits - 1));  // the quiet NaN
        const double magnitude = std::fabs(x);
        if (magnitude == 0) return sign;
        if (std::isinf(magnitude)) return sign | exponent_all_ones;
        // The binade of |x|, clamped to the normal range: below it the spacing stays that of subnormals.
        const int exponent = std::max(std::ilogb(magnitude), min_exponent);
        const double quantum = std::ldexp(1.0, exponent - MantissaBits);
        const double rounded = std::nearbyint(magnitude / quantum) * quantum;  // ties to even
        if (rounded >= std::ldexp(1.0, max_exponent + 1)) return sign | exponent_all_ones;  // overflow: infinity
        if (rounded < std::ldexp(1.0, min_exponent))  // subnormal (or rounded up to the smallest normal below)
            return sign | static_cast<std::uint16_t>(rounded / std::ldexp(1.0, min_exponent - MantissaBits));
        const int e = std::ilogb(rounded);  // rounding may have carried into the next binade
        const auto mantissa = static_cast<std::uint32_t>(rounded / std::ldexp(1.0, e - MantissaBits)) - (1u << MantissaBits);
        return sign | static_cast<std::uint16_t>((static_cast<std::uint32_t>(e + bias) << MantissaBits) | mantissa);
    }

    std::uint16_t bits_ = 0;
};

/// bfloat16: float's 8 exponent bits, 7 stored mantissa bits.
using bf16 = narrow_float<8, 7>;
/// IEEE 754 binary16: 5 exponent bits, 10 stored mantissa bits.
using fp16 = narrow_float<5, 10>;

} // namespace qkov
