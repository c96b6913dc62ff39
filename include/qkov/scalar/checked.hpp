// checked<I>: a native signed integer (int32, int64, __int128) whose every operation is checked.
//
// Overflow never wraps and never is undefined behaviour: it calls integer_overflow_detected(),
// which is a compile error during constant evaluation and throws std::overflow_error at run time.
// The __builtin_*_overflow intrinsics are constant-evaluable on g++ and clang and cover __int128.
#pragma once

#include <compare>
#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "qkov/scalar/errors.hpp"
#include "qkov/scalar/native_integer.hpp"

namespace qkov {

template <native_signed_integer I>
class checked {
public:
    using native_type = I;

    constexpr checked() = default;
    template <native_integer J>
    constexpr checked(J v) : value_(narrow(v))
    {
    }
    /// From another checked width (range-checked), so matrix_cast can widen int64 to __int128.
    template <native_signed_integer J>
        requires(!std::same_as<I, J>)
    constexpr checked(checked<J> v) : value_(narrow(v.value()))
    {
    }

    [[nodiscard]] constexpr I value() const { return value_; }
    constexpr explicit operator I() const { return value_; }

    friend constexpr checked operator+(checked a, checked b)
    {
        I r{};
        if (__builtin_add_overflow(a.value_, b.value_, &r)) integer_overflow_detected();
        return from_raw(r);
    }
    friend constexpr checked operator-(checked a, checked b)
    {
        I r{};
        if (__builtin_sub_overflow(a.value_, b.value_, &r)) integer_overflow_detected();
        return from_raw(r);
    }
    friend constexpr checked operator*(checked a, checked b)
    {
        I r{};
        if (__builtin_mul_overflow(a.value_, b.value_, &r)) integer_overflow_detected();
        return from_raw(r);
    }
    // Truncating division, as for native integers; the one overflowing case is min / -1.
    friend constexpr checked operator/(checked a, checked b)
    {
        if (b.value_ == 0) division_by_zero_detected();
        if (a.value_ == std::numeric_limits<I>::min() && b.value_ == -1) integer_overflow_detected();
        return from_raw(a.value_ / b.value_);
    }
    friend constexpr checked operator%(checked a, checked b)
    {
        if (b.value_ == 0) division_by_zero_detected();
        if (b.value_ == -1) return from_raw(0);  // min % -1 overflows in hardware
        return from_raw(a.value_ % b.value_);
    }
    constexpr checked operator-() const { return checked{} - *this; }
    constexpr checked operator+() const { return *this; }

    constexpr checked& operator+=(checked b) { return *this = *this + b; }
    constexpr checked& operator-=(checked b) { return *this = *this - b; }
    constexpr checked& operator*=(checked b) { return *this = *this * b; }
    constexpr checked& operator/=(checked b) { return *this = *this / b; }

    friend constexpr bool operator==(checked, checked) = default;
    friend constexpr auto operator<=>(checked, checked) = default;

private:
    static constexpr checked from_raw(I v)
    {
        checked c;
        c.value_ = v;
        return c;
    }
    template <class J>
    static constexpr I narrow(J v)
    {
        if (!fits_in<I>(v)) integer_overflow_detected();
        return static_cast<I>(v);
    }

    I value_{};
};

using checked_int64 = checked<std::int64_t>;
using checked_int128 = checked<__int128>;

} // namespace qkov
