// Attention scores of a batch: S = scale * Q K^T (n_q x n_k), row = query, column = key.
//
// Q and K are row batches (one token per row, head width d columns), so S(i, j) = scale q_i . k_j,
// the orientation of circuits/qk_ov.hpp. scale is 1 for the seeds' dot-product attention and
// 1/sqrt(d) for the usual scaled attention. With causal masking only the blocks on or below the
// diagonal go through BLAS (about half the multiply-adds of the full product) and entries
// above the diagonal are set to -infinity, so a softmax gives them weight 0.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>

#include "qkov/numeric/blas_products.hpp"
#include "qkov/numeric/masking.hpp"

namespace qkov::numeric {

/// Rows per BLAS call in the causal product: large enough for BLAS to run at full speed, small
/// enough that the skipped upper triangle is most of the upper half.
inline constexpr std::size_t causal_block_rows = 128;

/// Throws std::invalid_argument unless queries and keys have the same width and, under causal
/// masking, the same count.
template <class T>
void require_score_operands(const tensor2<T>& queries, const tensor2<T>& keys, masking mask)
{
    require_shape(keys.shape()[1] == queries.shape()[1], "the key batch", keys,
                  "its width must equal the query width " + std::to_string(queries.shape()[1]));
    if (mask == masking::causal)
        require_shape(queries.shape()[0] == keys.shape()[0], "the key batch", keys,
                      "causal masking needs as many keys as queries (" + std::to_string(queries.shape()[0]) + ")");
}

template <class T>
tensor2<T> attention_scores(const tensor2<T>& queries, const tensor2<T>& keys, T scale = T(1), masking mask = masking::none)
{
    require_score_operands(queries, keys, mask);
    const std::size_t n_q = queries.shape()[0], n_k = keys.shape()[0];
    if (mask == masking::none) {
        tensor2<T> scores = allocate_result<T>(n_q, n_k, "the score matrix");
        gemm_block(queries, 0, n_q, keys, transposed::yes, 0, n_k, scale, scores, 0, 0);
        return scores;
    }
    tensor2<T> scores = allocate_result<T>(n_q, n_k, "the score matrix");
    for (std::size_t row = 0; row < n_q; row += causal_block_rows) {
        const std::size_t rows = std::min(causal_block_rows, n_q - row), visible = row + rows;
        gemm_block(queries, row, rows, keys, transposed::yes, 0, visible, scale, scores, row, 0);
        for (std::size_t i = row; i < row + rows; ++i)
            std::fill(scores.data() + i * n_k + i + 1, scores.data() + (i + 1) * n_k, -std::numeric_limits<T>::infinity());
    }
    return scores;
}

} // namespace qkov::numeric
