// Matrices whose entries are distinct real symbols, for statements "for every W_q, W_k, x".
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "qkov/matrix/matrix.hpp"

namespace qkov {

/// Entry (i, j) is the real symbol first_id + i * C + j; returns the next free id through `next_id`.
template <class P, std::size_t R, std::size_t C>
constexpr matrix<P, R, C> symbolic_entries(std::uint16_t first_id, std::uint16_t* next_id = nullptr)
{
    if (std::size_t{first_id} + R * C > 0xFFFF) throw std::out_of_range("qkov: more real symbols than ids");
    matrix<P, R, C> m;
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) m(i, j) = P::variable(static_cast<std::uint16_t>(first_id + i * C + j));
    if (next_id) *next_id = static_cast<std::uint16_t>(first_id + R * C);
    return m;
}

} // namespace qkov
