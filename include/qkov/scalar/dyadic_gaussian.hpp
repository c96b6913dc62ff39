// dyadic_gaussian: exact numbers (a + b i) / 2^k with int64 a, b — the coefficients that
// rotation identities produce (cos = (w + 1/w)/2, sin = (w - 1/w)/(2i)).
//
// It is the fast default coefficient of trig_poly: a product is four integer products and a
// shift, with no gcd, which g++'s constant evaluator runs several times faster than a
// Gaussian rational (measured ~0.7 ms per Gaussian-rational product). It is a ring, not a
// field: only division by 2 is exact. Statements with other denominators (pseudo-inverses of
// rational weights) use trig_poly over gaussian<rational<I>> instead.
// Normal form: a and b not both even unless k = 0; zero is (0, 0, 0). So == compares members.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <stdexcept>

#include "qkov/scalar/errors.hpp"
#include "qkov/scalar/native_integer.hpp"

namespace qkov {

namespace detail {
// Defined before the class (not as members after their use): clang 14 does not constant-evaluate
// a member function template that the class uses before the template's definition.
template <native_integer N>
constexpr std::int64_t dyadic_numerator(N v)
{
    if (!fits_in<std::int64_t>(v)) coefficient_out_of_range();
    return static_cast<std::int64_t>(v);
}
template <native_integer N>
constexpr std::uint32_t dyadic_exponent(N v)
{
    if (!fits_in<std::uint32_t>(v)) coefficient_out_of_range();
    return static_cast<std::uint32_t>(v);
}
} // namespace detail

class dyadic_gaussian {
public:
    constexpr dyadic_gaussian() = default;
    /// The integer re, from any native integer that fits 64 bits (checked: 2^64 - 1 must not
    /// become -1). Floating point matches no constructor: 0.5 must not become 0. A double's exact
    /// value is available through from_double.
    template <native_integer N>
    constexpr dyadic_gaussian(N re) : re_(detail::dyadic_numerator(re))
    {
    }
    /// Floating point is refused rather than cut to an integer (use from_double for a double's value).
    template <std::floating_point F>
    dyadic_gaussian(F) = delete;
    /// (re + im i) / 2^shift, each argument a native integer in range (checked likewise).
    template <native_integer A, native_integer B, native_integer S>
    constexpr dyadic_gaussian(A re, B im, S shift) : re_(detail::dyadic_numerator(re)), im_(detail::dyadic_numerator(im)), shift_(detail::dyadic_exponent(shift))
    {
        normalize();
    }

    static constexpr dyadic_gaussian i() { return dyadic_gaussian(0, 1, 0); }

    /// The real number num / den, which must be dyadic (den a power of two, up to sign).
    template <native_integer N, native_integer D>
    static constexpr dyadic_gaussian from_fraction(N num_in, D den_in)
    {
        std::int64_t num = detail::dyadic_numerator(num_in), den = detail::dyadic_numerator(den_in);
        if (den < 0) {
            if (num == INT64_MIN || den == INT64_MIN) integer_overflow_detected();
            num = -num;
            den = -den;
        }
        if (den == 0) division_by_zero_detected();
        if ((den & (den - 1)) != 0) not_a_dyadic_number();
        return dyadic_gaussian(num, 0, static_cast<std::uint32_t>(__builtin_ctzll(static_cast<std::uint64_t>(den))));
    }

    /// The exact value of a finite double: every double is m 2^e with an integer |m| < 2^53.
    /// Refused (by name) if it is NaN or infinite, or an integer of 2^63 or more in magnitude.
    static constexpr dyadic_gaussian from_double(double x)
    {
        const auto bits = std::bit_cast<std::uint64_t>(x);
        const auto biased = static_cast<int>((bits >> 52) & 0x7FF);
        if (biased == 0x7FF) not_a_finite_number();
        const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
        // Normal numbers carry the implicit leading 1; subnormals share the exponent of the smallest normal.
        const std::int64_t magnitude = static_cast<std::int64_t>(biased == 0 ? fraction : fraction | (std::uint64_t{1} << 52));
        const int e = (biased == 0 ? 1 : biased) - 1075;
        const std::int64_t m = (bits >> 63) != 0 ? -magnitude : magnitude;
        if (e < 0) return dyadic_gaussian(m, 0, -e);
        if (e >= 63 || magnitude > (INT64_MAX >> e)) coefficient_out_of_range();
        return dyadic_gaussian(scale_up(m, static_cast<std::uint32_t>(e)), 0, 0);
    }

    [[nodiscard]] constexpr std::int64_t real_numerator() const { return re_; }
    [[nodiscard]] constexpr std::int64_t imag_numerator() const { return im_; }
    [[nodiscard]] constexpr std::uint32_t shift() const { return shift_; }
    [[nodiscard]] constexpr dyadic_gaussian conj() const
    {
        if (im_ == INT64_MIN) integer_overflow_detected();
        return raw(re_, -im_, shift_);
    }

    friend constexpr dyadic_gaussian operator*(const dyadic_gaussian& x, const dyadic_gaussian& y)
    {
        std::int64_t ac = 0, bd = 0, ad = 0, bc = 0, re = 0, im = 0;
        if (__builtin_mul_overflow(x.re_, y.re_, &ac) || __builtin_mul_overflow(x.im_, y.im_, &bd) ||
            __builtin_mul_overflow(x.re_, y.im_, &ad) || __builtin_mul_overflow(x.im_, y.re_, &bc) ||
            __builtin_sub_overflow(ac, bd, &re) || __builtin_add_overflow(ad, bc, &im))
            integer_overflow_detected();
        std::uint32_t shift = 0;
        if (__builtin_add_overflow(x.shift_, y.shift_, &shift)) integer_overflow_detected();
        return dyadic_gaussian(re, im, shift);
    }
    friend constexpr dyadic_gaussian operator+(const dyadic_gaussian& x, const dyadic_gaussian& y)
    {
        return add(x, y, false);
    }
    friend constexpr dyadic_gaussian operator-(const dyadic_gaussian& x, const dyadic_gaussian& y)
    {
        return add(x, y, true);
    }
    constexpr dyadic_gaussian operator-() const
    {
        if (re_ == INT64_MIN || im_ == INT64_MIN) integer_overflow_detected();
        return raw(-re_, -im_, shift_);
    }
    constexpr dyadic_gaussian& operator+=(const dyadic_gaussian& y) { return *this = *this + y; }
    constexpr dyadic_gaussian& operator-=(const dyadic_gaussian& y) { return *this = *this - y; }
    constexpr dyadic_gaussian& operator*=(const dyadic_gaussian& y) { return *this = *this * y; }

    friend constexpr bool operator==(const dyadic_gaussian&, const dyadic_gaussian&) = default;

private:
    static constexpr dyadic_gaussian raw(std::int64_t re, std::int64_t im, std::uint32_t shift)
    {
        dyadic_gaussian z;
        z.re_ = re;
        z.im_ = im;
        z.shift_ = shift;
        return z;
    }

    static constexpr std::int64_t scale_up(std::int64_t v, std::uint32_t bits)
    {
        if (bits >= 63) {
            if (v != 0) integer_overflow_detected();
            return 0;
        }
        std::int64_t r = 0;
        if (__builtin_mul_overflow(v, std::int64_t{1} << bits, &r)) integer_overflow_detected();
        return r;
    }

    static constexpr dyadic_gaussian add(const dyadic_gaussian& x, const dyadic_gaussian& y, bool subtract)
    {
        const std::uint32_t shift = x.shift_ > y.shift_ ? x.shift_ : y.shift_;
        const std::int64_t xr = scale_up(x.re_, shift - x.shift_), xi = scale_up(x.im_, shift - x.shift_);
        const std::int64_t yr = scale_up(y.re_, shift - y.shift_), yi = scale_up(y.im_, shift - y.shift_);
        std::int64_t re = 0, im = 0;
        const bool overflow = subtract ? (__builtin_sub_overflow(xr, yr, &re) || __builtin_sub_overflow(xi, yi, &im))
                                       : (__builtin_add_overflow(xr, yr, &re) || __builtin_add_overflow(xi, yi, &im));
        if (overflow) integer_overflow_detected();
        return dyadic_gaussian(re, im, shift);
    }

    constexpr void normalize()
    {
        if (re_ == 0 && im_ == 0) {
            shift_ = 0;
            return;
        }
        // Strip the common factors of 2, at most shift_ of them.
        const std::uint64_t bits = static_cast<std::uint64_t>(re_) | static_cast<std::uint64_t>(im_);
        std::uint32_t twos = static_cast<std::uint32_t>(__builtin_ctzll(bits));
        if (twos > shift_) twos = shift_;
        // Arithmetic shifts (defined for negative numbers since C++20; the values are divisible by
        // 2^twos). Not division by (1 << twos): at twos = 63 the divisor is INT64_MIN and
        // -2^63 / INT64_MIN = +1 would flip the sign.
        re_ >>= twos;
        im_ >>= twos;
        shift_ -= twos;
    }

    std::int64_t re_ = 0;
    std::int64_t im_ = 0;
    std::uint32_t shift_ = 0;
};

} // namespace qkov
