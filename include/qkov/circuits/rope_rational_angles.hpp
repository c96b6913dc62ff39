// The exact angle provider: rotations whose cosines and sines are rational numbers, taken from
// Pythagorean triples, so exact scalars can rotate without approximating anything.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "qkov/scalar/gaussian.hpp"
#include "qkov/scalar/native_integer.hpp"

namespace qkov {

/// What an exact position may be: a native integer of any width (its exact value is used).
template <class Position>
concept integer_position = native_integer<Position>;

/// Exact rotations: pair l turns by the angle whose cosine and sine are the rational numbers
/// ((a^2 - b^2), 2ab) / (a^2 + b^2) of a Pythagorean triple; R_m uses its m-th power, exactly.
template <class Q, std::size_t Pairs>
struct rational_angles {
    using scalar = Q;
    std::array<std::pair<std::int64_t, std::int64_t>, Pairs> generators;  ///< (a, b) per pair

    template <class Position>
        requires integer_position<Position>
    constexpr std::pair<Q, Q> cos_sin(std::size_t l, const Position& position) const
    {
        // In Q (checked): a^2 + b^2 of 64-bit generators would overflow int64 silently.
        const Q a(generators[l].first), b(generators[l].second);
        const Q norm = a * a + b * b;
        gaussian<Q> base((a * a - b * b) / norm, (Q(2) * a * b) / norm);
        const bool negative = is_negative(position);
        if (negative) base = base.conj();  // unit modulus: the inverse is the conjugate
        // The magnitude in unsigned __int128, which holds |position| of every native integer exactly.
        unsigned __int128 k = negative ? static_cast<unsigned __int128>(0) - static_cast<unsigned __int128>(position)
                                       : static_cast<unsigned __int128>(position);
        gaussian<Q> power(Q(1));
        for (; k > 0; k >>= 1) {  // square and multiply
            if (k & 1) power = power * base;
            // No square after the last bit: it would go unused, and base^(2^(j+1)) can overflow
            // where R_m itself fits (R_16 with cos 3/5 has denominator 5^16; the square, 5^32).
            if (k > 1) base = base * base;
        }
        return {power.real(), power.imag()};
    }
};

} // namespace qkov
