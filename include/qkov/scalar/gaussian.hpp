// gaussian<F>: exact complex numbers a + b i over an exact real field F (typically rational<I>).
// Needed wherever rotations are written with e^{i theta}: cos and sin become (w + 1/w)/2 and
// (w - 1/w)/(2i), and the arithmetic stays exact.
#pragma once

#include <type_traits>

#include "qkov/scalar/errors.hpp"
#include "qkov/scalar/exact.hpp"

namespace qkov {

template <class F>
class gaussian {
public:
    using real_type = F;

    constexpr gaussian() : re_(0), im_(0) {}
    constexpr gaussian(const F& re) : re_(re), im_(0) {}
    template <class N>
        requires std::is_constructible_v<F, N>
    constexpr gaussian(N re) : re_(re), im_(0)
    {
    }
    constexpr gaussian(const F& re, const F& im) : re_(re), im_(im) {}

    static constexpr gaussian i() { return gaussian(F(0), F(1)); }

    [[nodiscard]] constexpr const F& real() const { return re_; }
    [[nodiscard]] constexpr const F& imag() const { return im_; }
    [[nodiscard]] constexpr gaussian conj() const { return gaussian(re_, -im_); }
    /// |z|^2 = a^2 + b^2, exact (the norm itself may be irrational).
    [[nodiscard]] constexpr F norm_squared() const { return re_ * re_ + im_ * im_; }

    friend constexpr gaussian operator+(const gaussian& a, const gaussian& b)
    {
        return gaussian(a.re_ + b.re_, a.im_ + b.im_);
    }
    friend constexpr gaussian operator-(const gaussian& a, const gaussian& b)
    {
        return gaussian(a.re_ - b.re_, a.im_ - b.im_);
    }
    friend constexpr gaussian operator*(const gaussian& a, const gaussian& b)
    {
        return gaussian(a.re_ * b.re_ - a.im_ * b.im_, a.re_ * b.im_ + a.im_ * b.re_);
    }
    friend constexpr gaussian operator/(const gaussian& a, const gaussian& b)
    {
        F n = b.norm_squared();
        if (n == F(0)) division_by_zero_detected();
        gaussian p = a * b.conj();
        return gaussian(p.re_ / n, p.im_ / n);
    }
    constexpr gaussian operator-() const { return gaussian(-re_, -im_); }
    constexpr gaussian operator+() const { return *this; }
    constexpr gaussian& operator+=(const gaussian& b) { return *this = *this + b; }
    constexpr gaussian& operator-=(const gaussian& b) { return *this = *this - b; }
    constexpr gaussian& operator*=(const gaussian& b) { return *this = *this * b; }
    constexpr gaussian& operator/=(const gaussian& b) { return *this = *this / b; }

    friend constexpr bool operator==(const gaussian& a, const gaussian& b)
    {
        return a.re_ == b.re_ && a.im_ == b.im_;
    }

private:
    F re_;
    F im_;
};

template <exact_field F>
struct is_exact_field<gaussian<F>> : std::true_type {};

} // namespace qkov
