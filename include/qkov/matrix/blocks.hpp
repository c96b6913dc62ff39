// Building matrices from blocks and cutting blocks out: block_diag, kron, hstack, vstack, submatrix.
#pragma once

#include <cstddef>
#include <type_traits>

#include "qkov/matrix/matrix.hpp"
#include "qkov/matrix/shape_check.hpp"

namespace qkov {

/// [[A, 0], [0, B]].
template <class T, std::size_t R1, std::size_t C1, std::size_t R2, std::size_t C2>
constexpr matrix<T, R1 + R2, C1 + C2> block_diag(const matrix<T, R1, C1>& a, const matrix<T, R2, C2>& b)
{
    matrix<T, R1 + R2, C1 + C2> m;
    for (std::size_t i = 0; i < R1; ++i)
        for (std::size_t j = 0; j < C1; ++j) m(i, j) = a(i, j);
    for (std::size_t i = 0; i < R2; ++i)
        for (std::size_t j = 0; j < C2; ++j) m(R1 + i, C1 + j) = b(i, j);
    return m;
}

/// Kronecker product: block (i, j) is a(i, j) * b.
template <class T, std::size_t R1, std::size_t C1, std::size_t R2, std::size_t C2>
constexpr matrix<T, R1 * R2, C1 * C2> kron(const matrix<T, R1, C1>& a, const matrix<T, R2, C2>& b)
{
    matrix<T, R1 * R2, C1 * C2> m;
    for (std::size_t i = 0; i < R1; ++i)
        for (std::size_t j = 0; j < C1; ++j) {
            if constexpr (!std::is_floating_point_v<T>)  // keep IEEE 0 * inf = NaN
                if (is_zero(a(i, j))) continue;
            for (std::size_t k = 0; k < R2; ++k)
                for (std::size_t l = 0; l < C2; ++l) m(i * R2 + k, j * C2 + l) = a(i, j) * b(k, l);
        }
    return m;
}

/// [A | B]: the row counts must agree.
template <class T, std::size_t R1, std::size_t C1, std::size_t R2, std::size_t C2>
constexpr matrix<T, R1, C1 + C2> hstack(const matrix<T, R1, C1>& a, const matrix<T, R2, C2>& b)
{
    static_assert(shapes_must_fit<op::hstack, shape<R1, C1>, shape<R2, C2>, R1 == R2>::value);
    matrix<T, R1, C1 + C2> m;
    if constexpr (R1 == R2) {
        for (std::size_t i = 0; i < R1; ++i) {
            for (std::size_t j = 0; j < C1; ++j) m(i, j) = a(i, j);
            for (std::size_t j = 0; j < C2; ++j) m(i, C1 + j) = b(i, j);
        }
    }
    return m;
}

/// [A ; B]: the column counts must agree.
template <class T, std::size_t R1, std::size_t C1, std::size_t R2, std::size_t C2>
constexpr matrix<T, R1 + R2, C1> vstack(const matrix<T, R1, C1>& a, const matrix<T, R2, C2>& b)
{
    static_assert(shapes_must_fit<op::vstack, shape<R1, C1>, shape<R2, C2>, C1 == C2>::value);
    matrix<T, R1 + R2, C1> m;
    if constexpr (C1 == C2) {
        for (std::size_t j = 0; j < C1; ++j) {
            for (std::size_t i = 0; i < R1; ++i) m(i, j) = a(i, j);
            for (std::size_t i = 0; i < R2; ++i) m(R1 + i, j) = b(i, j);
        }
    }
    return m;
}

/// The Rows x Cols block whose top-left entry is (Row0, Col0); it must lie inside `a`.
template <std::size_t Row0, std::size_t Col0, std::size_t Rows, std::size_t Cols, class T, std::size_t R,
          std::size_t C>
constexpr matrix<T, Rows, Cols> submatrix(const matrix<T, R, C>& a)
{
    static_assert(shapes_must_fit<op::submatrix, shape<R, C>, shape<Row0 + Rows, Col0 + Cols>,
                                  Row0 + Rows <= R && Col0 + Cols <= C>::value);
    matrix<T, Rows, Cols> m;
    if constexpr (Row0 + Rows <= R && Col0 + Cols <= C) {
        for (std::size_t i = 0; i < Rows; ++i)
            for (std::size_t j = 0; j < Cols; ++j) m(i, j) = a(Row0 + i, Col0 + j);
    }
    return m;
}

} // namespace qkov
