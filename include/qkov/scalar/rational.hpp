// rational<I>: an exact fraction over a checked integer type, always in lowest terms with a
// positive denominator. Because the representation is canonical, == compares members directly.
//
// Intermediate products are reduced by cross-gcds before multiplying (Knuth, TAOCP 4.5.1),
// which keeps them small. Overflow is always reported, never wrapped; it may be reported
// slightly early (a comparison cross-multiplies; the minimum value of I cannot be negated).
#pragma once

#include <compare>

#include "qkov/scalar/errors.hpp"
#include "qkov/scalar/exact.hpp"
#include "qkov/scalar/integer.hpp"

namespace qkov {

template <exact_integer I>
class rational {
public:
    using integer_type = I;

    constexpr rational() : num_(0), den_(1) {}
    constexpr rational(const I& n) : num_(n), den_(1) {}
    template <native_integer N>
    constexpr rational(N n) : num_(I(n)), den_(1)
    {
    }
    constexpr rational(const I& n, const I& d) : num_(n), den_(d) { normalize(); }
    /// From a checked integer of another width (range-checked).
    template <native_signed_integer N>
        requires(!std::same_as<I, checked<N>>)
    constexpr rational(checked<N> n) : num_(I(n.value())), den_(1)
    {
    }
    template <native_integer N, native_integer D>
    constexpr rational(N n, D d) : rational(I(n), I(d))
    {
    }

    [[nodiscard]] constexpr const I& num() const { return num_; }
    [[nodiscard]] constexpr const I& den() const { return den_; }

    friend constexpr rational operator+(const rational& a, const rational& b) { return add(a, b, false); }
    friend constexpr rational operator-(const rational& a, const rational& b) { return add(a, b, true); }

    friend constexpr rational operator*(const rational& a, const rational& b)
    {
        if (a.den_ == I(1) && b.den_ == I(1)) return from_lowest_terms(a.num_ * b.num_, I(1));  // integers: no gcd
        I g1 = gcd(a.num_, b.den_);
        I g2 = gcd(b.num_, a.den_);  // both >= 1: denominators are positive
        I n1 = a.num_ / g1;
        I n2 = b.num_ / g2;
        I d1 = a.den_ / g2;
        I d2 = b.den_ / g1;
        return from_lowest_terms(n1 * n2, d1 * d2);
    }

    friend constexpr rational operator/(const rational& a, const rational& b)
    {
        if (b.num_ == I(0)) division_by_zero_detected();
        return a * b.reciprocal();
    }

    constexpr rational operator-() const { return from_lowest_terms(-num_, den_); }
    constexpr rational operator+() const { return *this; }
    constexpr rational& operator+=(const rational& b) { return *this = *this + b; }
    constexpr rational& operator-=(const rational& b) { return *this = *this - b; }
    constexpr rational& operator*=(const rational& b) { return *this = *this * b; }
    constexpr rational& operator/=(const rational& b) { return *this = *this / b; }

    [[nodiscard]] constexpr rational reciprocal() const
    {
        if (num_ == I(0)) division_by_zero_detected();
        return num_ < I(0) ? from_lowest_terms(-den_, -num_) : from_lowest_terms(den_, num_);
    }

    friend constexpr bool operator==(const rational& a, const rational& b)
    {
        return a.num_ == b.num_ && a.den_ == b.den_;
    }
    friend constexpr std::strong_ordering operator<=>(const rational& a, const rational& b)
    {
        I left = a.num_ * b.den_;
        I right = b.num_ * a.den_;
        if (left < right) return std::strong_ordering::less;
        if (right < left) return std::strong_ordering::greater;
        return std::strong_ordering::equal;
    }

private:
    struct lowest_terms_tag {};
    constexpr rational(const I& n, const I& d, lowest_terms_tag) : num_(n), den_(d) {}
    static constexpr rational from_lowest_terms(const I& n, const I& d) { return rational(n, d, lowest_terms_tag{}); }

    constexpr void normalize()
    {
        if (den_ == I(0)) division_by_zero_detected();
        if (den_ < I(0)) {
            num_ = -num_;
            den_ = -den_;
        }
        I g = gcd(num_, den_);
        if (g != I(1)) {
            num_ = num_ / g;
            den_ = den_ / g;
        }
    }

    // a +- b with d = gcd(a.den, b.den): a.num*(b.den/d) +- b.num*(a.den/d) over a.den*(b.den/d),
    // then reduce only by gcd(numerator, d), which is all that can remain.
    static constexpr rational add(const rational& a, const rational& b, bool subtract)
    {
        if (a.den_ == I(1) && b.den_ == I(1))  // integers: no gcd
            return from_lowest_terms(subtract ? I(a.num_ - b.num_) : I(a.num_ + b.num_), I(1));
        if (b.num_ == I(0)) return a;
        if (a.num_ == I(0)) return subtract ? rational(-b) : b;
        I d = gcd(a.den_, b.den_);
        I a_scale = b.den_ / d;
        I b_scale = a.den_ / d;
        I left = a.num_ * a_scale;
        I right = b.num_ * b_scale;
        I n = subtract ? I(left - right) : I(left + right);
        if (n == I(0)) return rational{};
        I g = gcd(n, d);
        I reduced_num = n / g;
        I reduced_den_factor = a.den_ / g;
        return from_lowest_terms(reduced_num, reduced_den_factor * a_scale);
    }

    I num_;
    I den_;
};

template <exact_integer I>
struct is_exact_field<rational<I>> : std::true_type {};

using rational64 = rational<checked_int64>;
using rational128 = rational<checked_int128>;

} // namespace qkov
