// Numeric evaluation of a trig_poly at given real symbols, angles and integer positions, in
// complex<double>: to cross-check symbolic results against ordinary floating-point arithmetic
// (a validation, not a proof).
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "qkov/scalar/dyadic_gaussian.hpp"
#include "qkov/scalar/gaussian.hpp"
#include "qkov/scalar/rational.hpp"
#include "qkov/scalar/trig_poly.hpp"

namespace qkov {

inline std::complex<double> to_complex(const dyadic_gaussian& c)
{
    const double scale = std::ldexp(1.0, -static_cast<int>(c.shift()));
    return {static_cast<double>(c.real_numerator()) * scale, static_cast<double>(c.imag_numerator()) * scale};
}

template <class I>
std::complex<double> to_complex(const gaussian<rational<I>>& c)
{
    auto value = [](const rational<I>& q) { return static_cast<double>(q.num().value()) / static_cast<double>(q.den().value()); };
    return {value(c.real()), value(c.imag())};
}

/// The value of p with real symbol k = reals[k], angle l = angles[l], position symbol s = positions[s].
template <class C, std::size_t MR, std::size_t MP, std::size_t S>
std::complex<double> evaluate(const trig_poly<C, MR, MP, S>& p, const std::vector<double>& reals,
                              const std::vector<double>& angles, const std::array<std::int64_t, S>& positions)
{
    std::complex<double> sum = 0;
    for (std::size_t t = 0; t < p.size(); ++t) {
        const auto& term = p.term_at(t);
        std::complex<double> value = to_complex(term.coefficient);
        for (std::size_t k = 0; k < term.mono.reals; ++k) {
            const std::uint32_t id = term.mono.real[k] >> 16, power = term.mono.real[k] & 0xFFFF;
            if (id >= reals.size()) throw std::out_of_range("qkov: evaluate needs a value for every real symbol");
            value *= std::pow(reals[id], static_cast<double>(power));
        }
        for (std::size_t k = 0; k < term.mono.phases; ++k) {
            if (term.mono.angle(k) >= angles.size()) throw std::out_of_range("qkov: evaluate needs every angle");
            const double exponent = static_cast<double>(term.mono.exponent(k).evaluate(positions));
            value *= std::polar(1.0, exponent * angles[term.mono.angle(k)]);
        }
        sum += value;
    }
    return sum;
}

} // namespace qkov
