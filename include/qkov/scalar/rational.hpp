// rational<I>: an exact fraction over a checked integer type, always in lowest terms with a
// positive denominator. Because the representation is canonical, == compares members directly.
//
// Intermediate products are reduced by cross-gcds before multiplying (Knuth, TAOCP 4.5.1),
// which keeps them small. Overflow is always reported, never wrapped; it may be reported
// slightly early (the minimum value of I cannot be negated). Comparisons never overflow.
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
    /// Exact for every pair of representable rationals: the cross products a.num * b.den and
    /// b.num * a.den are compared when they fit I (native widths test that without overflowing);
    /// otherwise the two fractions are compared by their continued fractions, which only divides.
    friend constexpr std::strong_ordering operator<=>(const rational& a, const rational& b)
    {
        if (a.den_ == b.den_) return order(a.num_, b.num_);
        if constexpr (requires { typename I::native_type; }) {
            using N = typename I::native_type;
            N left{}, right{};
            if (!__builtin_mul_overflow(a.num_.value(), b.den_.value(), &left) &&
                !__builtin_mul_overflow(b.num_.value(), a.den_.value(), &right))
                return left <=> right;
        }
        return compare_by_continued_fractions(a.num_, a.den_, b.num_, b.den_);
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

    static constexpr std::strong_ordering order(const I& x, const I& y)
    {
        if (x < y) return std::strong_ordering::less;
        if (y < x) return std::strong_ordering::greater;
        return std::strong_ordering::equal;
    }

    // n1/d1 <=> n2/d2 for d1, d2 > 0 without a product: the integer parts (floor) first; when
    // they agree, the fractional parts r1/d1 and r2/d2 (0 <= r < d) are ordered opposite to their
    // reciprocals d1/r1 and d2/r2, which are compared the same way. Euclid's algorithm on both
    // fractions at once: the denominators shrink at every step, and no value leaves I's range
    // (floor(n/d) lies between 0 and n for d >= 1, and a negative remainder plus d lies in (0, d)).
    static constexpr std::strong_ordering compare_by_continued_fractions(I n1, I d1, I n2, I d2)
    {
        bool reversed = false;
        for (;;) {
            I q1 = n1 / d1, r1 = n1 % d1;
            if (r1 < I(0)) q1 = q1 - I(1), r1 = r1 + d1;
            I q2 = n2 / d2, r2 = n2 % d2;
            if (r2 < I(0)) q2 = q2 - I(1), r2 = r2 + d2;
            std::strong_ordering result = order(q1, q2);
            if (result == std::strong_ordering::equal) {
                if (r1 == I(0) || r2 == I(0)) {
                    result = order(r1, r2);  // a zero fractional part is the smaller one
                } else {
                    n1 = d1, d1 = r1, n2 = d2, d2 = r2;
                    reversed = !reversed;
                    continue;
                }
            }
            return reversed ? 0 <=> result : result;
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
