// The pseudo-inverse of a full-column-rank matrix W (R x C, C <= R) in floating point:
// W^+ = (W^T W)^-1 W^T, through the Cholesky factor of the Gram matrix. matrix/pseudo_inverse.hpp
// computes the same thing exactly (over rationals); this one serves Boost.Multiprecision, where
// normal equations square the condition number but 50-100 digits leave ample room for the
// well-conditioned factors the validations use (the residual bounds include that condition number).
#pragma once

#include <cstddef>
#include <memory>

#include "qkov/matrix/matrix.hpp"
#include "qkov/precision/cholesky.hpp"
#include "qkov/precision/heap.hpp"

namespace qkov::precision {

/// W^T W, without forming W^T.
template <class T, std::size_t R, std::size_t C>
matrix<T, C, C> gram(const matrix<T, R, C>& w)
{
    matrix<T, C, C> g;
    for (std::size_t i = 0; i < C; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
            T s(0);
            for (std::size_t r = 0; r < R; ++r) s += w(r, i) * w(r, j);
            g(i, j) = s;
            g(j, i) = s;
        }
    return g;
}

/// W^+ for a full-column-rank W, on the heap (C x R may be large).
template <class T, std::size_t R, std::size_t C>
std::unique_ptr<matrix<T, C, R>> full_column_rank_pseudo_inverse(const matrix<T, R, C>& w)
{
    const cholesky<T, C> factor(gram(w));
    auto plus = on_heap([&] { return transpose(w); });
    factor.solve_in_place(*plus);
    return plus;
}

} // namespace qkov::precision
