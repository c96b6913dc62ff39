// Integer linear forms c_0 + c_1 s_1 + ... + c_K s_K in symbolic integers s_k (token positions
// m, n, ...). They are the exponents of the phases e^{i theta} in trig_poly: cos((n - m) theta)
// has the form n - m. Coefficients are checked: overflow is reported like any exact overflow.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "qkov/scalar/errors.hpp"
#include "qkov/scalar/native_integer.hpp"

namespace qkov {

template <std::size_t Symbols = 2>
class linear_form {
public:
    static constexpr std::size_t symbol_count = Symbols;

    constexpr linear_form() = default;
    /// The constant form c (so that m + 1 and m - n + 2 read naturally). Any native integer is
    /// accepted and range-checked: 2^32 must not become 0, nor 2^31 become -2^31. Floating point is
    /// not an integer and matches no constructor (2.5 must not become 2).
    template <native_integer N>
    constexpr linear_form(N c)
    {
        if (!fits_in<std::int32_t>(c)) linear_form_constant_out_of_range();
        coeff_[0] = static_cast<std::int32_t>(c);
    }

    /// The symbolic integer number k (0-based): position(0) is m, position(1) is n, by convention.
    /// (An integer index: a floating-point one would be cut to an integer silently.)
    template <native_integer N>
    static constexpr linear_form symbol(N k)
    {
        if (index_value(k) >= Symbols) throw std::out_of_range("qkov: linear_form symbol index beyond its capacity");
        linear_form f;
        f.coeff_[static_cast<std::size_t>(k) + 1] = 1;
        return f;
    }

    [[nodiscard]] constexpr std::int32_t constant() const { return coeff_[0]; }
    [[nodiscard]] constexpr std::int32_t coefficient(std::size_t k) const { return coeff_[k + 1]; }
    /// Entry k of the coefficient array: 0 is the constant, k > 0 the coefficient of symbol k - 1.
    [[nodiscard]] constexpr std::int32_t coefficient_raw(std::size_t k) const { return coeff_[k]; }
    [[nodiscard]] constexpr bool is_zero() const
    {
        for (std::size_t k = 0; k <= Symbols; ++k)
            if (coeff_[k] != 0) return false;
        return true;
    }

    friend constexpr linear_form operator+(const linear_form& a, const linear_form& b)
    {
        linear_form r;
        for (std::size_t k = 0; k <= Symbols; ++k)
            if (__builtin_add_overflow(a.coeff_[k], b.coeff_[k], &r.coeff_[k])) integer_overflow_detected();
        return r;
    }
    friend constexpr linear_form operator-(const linear_form& a, const linear_form& b) { return a + (-b); }
    constexpr linear_form operator-() const
    {
        linear_form r;
        for (std::size_t k = 0; k <= Symbols; ++k)
            if (__builtin_sub_overflow(std::int32_t{0}, coeff_[k], &r.coeff_[k])) integer_overflow_detected();
        return r;
    }
    /// s * a for an integer s: range-checked like the constant, then each product checked.
    template <native_integer N>
    friend constexpr linear_form operator*(N scale, const linear_form& a)
    {
        if (!fits_in<std::int32_t>(scale)) linear_form_constant_out_of_range();
        const auto s = static_cast<std::int32_t>(scale);
        linear_form r;
        for (std::size_t k = 0; k <= Symbols; ++k)
            if (__builtin_mul_overflow(s, a.coeff_[k], &r.coeff_[k])) integer_overflow_detected();
        return r;
    }

    friend constexpr bool operator==(const linear_form&, const linear_form&) = default;
    friend constexpr auto operator<=>(const linear_form&, const linear_form&) = default;

    /// The value at integer positions (for cross-checks against numeric RoPE).
    [[nodiscard]] constexpr std::int64_t evaluate(const std::array<std::int64_t, Symbols>& at) const
    {
        std::int64_t v = coeff_[0];
        for (std::size_t k = 0; k < Symbols; ++k) {
            std::int64_t term = 0;
            if (__builtin_mul_overflow(std::int64_t{coeff_[k + 1]}, at[k], &term) || __builtin_add_overflow(v, term, &v))
                integer_overflow_detected();
        }
        return v;
    }

private:
    // A plain array: std::array's operator[] is a function call in g++'s constant evaluator, and
    // forms are added in the innermost loops of trig_poly.
    std::int32_t coeff_[Symbols + 1]{};  // [0] is the constant
};

/// The symbolic integer position number k, as a linear form.
template <native_integer N>
constexpr linear_form<> position(N k)
{
    return linear_form<>::symbol(k);
}

} // namespace qkov
