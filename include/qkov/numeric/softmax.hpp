// Attention patterns from scores, and their logarithms.
//
// scores(i, j) is query i against key j (row = query, as circuits/qk_ov.hpp's attention_scores).
// Row i of a causal pattern is the softmax of scores(i, 0..i) and its entries j > i are exactly 0;
// without masking a row is the softmax of the whole row. Each row subtracts its maximum first,
// so no exp overflows. The log pattern is score - log-sum-exp, never log(softmax): a weight of
// 1e-47 has the log -108 even in float32, where the weight itself underflows to 0.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

#include "qkov/numeric/blas_products.hpp"
#include "qkov/numeric/masking.hpp"
#include "qkov/numeric/vector_exp.hpp"

namespace qkov::numeric {

/// log sum_{j in [begin, end)} exp(row[j]), skipping index `skip` (by default nothing).
/// An empty set gives -infinity.
template <class T>
T log_sum_exp(const T* row, std::size_t begin, std::size_t end, std::size_t skip = std::numeric_limits<std::size_t>::max())
{
    T top = -std::numeric_limits<T>::infinity();
    for (std::size_t j = begin; j < end; ++j)
        if (j != skip && row[j] > top) top = row[j];
    if (top == -std::numeric_limits<T>::infinity()) return top;
    T sum(0);
    for (std::size_t j = begin; j < end; ++j)
        if (j != skip) sum += std::exp(row[j] - top);
    return top + std::log(sum);
}

/// In place: row[0 .. visible) becomes its softmax (visible >= 1). Subtracting the maximum keeps
/// every exp <= 1; the exp, maximum and sum run over whole vectors (vector_exp.hpp).
template <class T>
void softmax_row(T* row, std::size_t visible)
{
    exp_shifted_in_place(row, visible, max_of(row, visible));
    const T inverse = T(1) / sum_of(row, visible);
    for (std::size_t j = 0; j < visible; ++j) row[j] *= inverse;
}

namespace detail {
/// Applies normalize(row, visible) to every row, where visible is i + 1 under causal masking
/// (which needs a square matrix) and the row length otherwise, then sets the masked entries.
template <class T, class Normalize>
void normalize_rows(tensor2<T>& scores, masking mask, T masked_value, Normalize normalize)
{
    if (mask == masking::causal)
        require_shape(scores.shape()[0] == scores.shape()[1], "the causal score matrix", scores, "it must be square");
    const std::size_t n = scores.shape()[1];
    if (n == 0) return;  // no keys: nothing to normalize
    for (std::size_t i = 0; i < scores.shape()[0]; ++i) {
        T* row = scores.data() + i * n;
        const std::size_t visible = mask == masking::causal ? i + 1 : n;
        normalize(row, visible);
        for (std::size_t j = visible; j < n; ++j) row[j] = masked_value;
    }
}
} // namespace detail

/// In place: scores becomes the attention pattern (each row sums to 1 over its visible keys, 0 elsewhere).
template <class T>
void softmax_in_place(tensor2<T>& scores, masking mask)
{
    detail::normalize_rows(scores, mask, T(0), [](T* row, std::size_t visible) { softmax_row(row, visible); });
}

/// In place: scores becomes the log of the attention pattern (-infinity on masked keys).
template <class T>
void log_softmax_in_place(tensor2<T>& scores, masking mask)
{
    detail::normalize_rows(scores, mask, -std::numeric_limits<T>::infinity(), [](T* row, std::size_t visible) {
        const T normalizer = log_sum_exp(row, 0, visible);
        for (std::size_t j = 0; j < visible; ++j) row[j] -= normalizer;
    });
}

} // namespace qkov::numeric
