// Matrices whose entries are distinct real symbols, for statements "for every W_q, W_k, x".
#pragma once

#include <cstddef>
#include <cstdint>

#include "qkov/matrix/matrix.hpp"
#include "qkov/scalar/errors.hpp"
#include "qkov/scalar/native_integer.hpp"

namespace qkov {

/// Entry (i, j) is the real symbol first_id + i * C + j; returns the next free id through `next_id`.
/// Every id must lie in 0 .. 65535 (symbol_id_out_of_range otherwise): ids are never wrapped.
template <class P, std::size_t R, std::size_t C, native_integer N>
constexpr matrix<P, R, C> symbolic_entries(N first_id, std::uint16_t* next_id = nullptr)
{
    // first_id + R * C is the next free id, so it may be 65536 only when nobody asks for it.
    if (!fits_in<std::uint16_t>(first_id) || std::size_t{static_cast<std::uint16_t>(first_id)} + R * C > 0xFFFF + 1 ||
        (next_id && std::size_t{static_cast<std::uint16_t>(first_id)} + R * C > 0xFFFF))
        symbol_id_out_of_range();
    const std::size_t first = static_cast<std::uint16_t>(first_id);
    matrix<P, R, C> m;
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) m(i, j) = P::variable(first + i * C + j);
    if (next_id) *next_id = static_cast<std::uint16_t>(first + R * C);
    return m;
}

} // namespace qkov
