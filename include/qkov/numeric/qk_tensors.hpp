// A head's W_q and W_k as owned tensors, built once from the fixed-size construction of circuits/
// (instantiated with double or float) and handed to rope_head.hpp as many times as needed.
#pragma once

#include <cstddef>

#include "qkov/matrix/matrix.hpp"
#include "qkov/numeric/blas_products.hpp"
#include "qkov/numeric/from_matrix.hpp"
#include "qkov/numeric/rope_head.hpp"

namespace qkov::numeric {

template <class T>
struct qk_tensors {
    tensor2<T> w_q, w_k;  ///< d x D each, column convention (q = W_q x)

    /// The view rope_head_scores and rope_head_pattern take; valid while this object lives.
    [[nodiscard]] head_projection<T> projection() const { return {w_q, w_k}; }
};

template <class T, std::size_t d, std::size_t D>
qk_tensors<T> to_qk_tensors(const matrix<T, d, D>& w_q, const matrix<T, d, D>& w_k)
{
    return {to_tensor(w_q), to_tensor(w_k)};
}

} // namespace qkov::numeric
