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

namespace qkov {

template <std::size_t Symbols = 2>
class linear_form {
public:
    static constexpr std::size_t symbol_count = Symbols;

    constexpr linear_form() = default;
    /// The constant form c (so that m + 1 and m - n + 2 read naturally).
    constexpr linear_form(std::int32_t c) { coeff_[0] = c; }

    /// The symbolic integer number k (0-based): position(0) is m, position(1) is n, by convention.
    static constexpr linear_form symbol(std::size_t k)
    {
        if (k >= Symbols) throw std::out_of_range("qkov: linear_form symbol index beyond its capacity");
        linear_form f;
        f.coeff_[k + 1] = 1;
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
    friend constexpr linear_form operator*(std::int32_t s, const linear_form& a)
    {
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
        for (std::size_t k = 0; k < Symbols; ++k) v += std::int64_t{coeff_[k + 1]} * at[k];
        return v;
    }

private:
    // A plain array: std::array's operator[] is a function call in g++'s constant evaluator, and
    // forms are added in the innermost loops of trig_poly.
    std::int32_t coeff_[Symbols + 1]{};  // [0] is the constant
};

/// The symbolic integer position number k, as a linear form.
constexpr linear_form<> position(std::size_t k) { return linear_form<>::symbol(k); }

} // namespace qkov
