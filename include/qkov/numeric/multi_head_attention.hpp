// Multi-head attention forward (claim K1, seed 004): split the model width into n_heads heads of
// d_head = D / n_heads, softmax(q k^T / sqrt(d_head)) per head, weights times values,
// concatenate the heads, project with W_O. Returns the attention weights of every head and the
// output.
//
// Shapes: tokens n x D (one token per row). W_Q, W_K, W_V, W_O are D x D in the column
// convention (q = W_Q x), which is also how torch.nn.Linear stores its weight, so the batch
// products are tokens W^T. Head h owns columns h d_head .. (h + 1) d_head - 1 of Q, K, V.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>

#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include "qkov/numeric/attention_scores.hpp"
#include "qkov/numeric/softmax.hpp"

namespace qkov::numeric {

template <class T>
struct attention_weights_and_output {
    xt::xtensor<T, 3> weights;  ///< n_heads x n x n: weights(h, i, j) = attention of query i on key j in head h
    tensor2<T> output;          ///< n x D
};

template <class T>
struct multi_head_weights {
    const tensor2<T>& w_q;
    const tensor2<T>& w_k;
    const tensor2<T>& w_v;
    const tensor2<T>& w_o;
};

namespace detail {
/// Columns [first, first + width) of a row batch, as a contiguous tensor for BLAS.
template <class T>
tensor2<T> column_block(const tensor2<T>& t, std::size_t first, std::size_t width)
{
    return xt::view(t, xt::all(), xt::range(first, first + width));
}
} // namespace detail

template <class T>
attention_weights_and_output<T> multi_head_attention(const tensor2<T>& tokens, const multi_head_weights<T>& w,
                                                     std::size_t n_heads, masking mask = masking::none)
{
    const std::size_t n = tokens.shape()[0], width = tokens.shape()[1];
    if (n_heads == 0 || width % n_heads != 0)
        throw std::invalid_argument("qkov: multi_head_attention needs n_heads (" + std::to_string(n_heads) +
                                    ") to divide the model width D = " + std::to_string(width));
    const char* names[] = {"W_Q", "W_K", "W_V", "W_O"};
    const tensor2<T>* matrices[] = {&w.w_q, &w.w_k, &w.w_v, &w.w_o};
    for (int k = 0; k < 4; ++k)
        require_shape(matrices[k]->shape()[0] == width && matrices[k]->shape()[1] == width, names[k], *matrices[k],
                      "it must be D x D with D = " + std::to_string(width) + " (the token width)");

    const std::size_t d_head = width / n_heads;
    const tensor2<T> q = product(tokens, w.w_q, transposed::yes);
    const tensor2<T> k = product(tokens, w.w_k, transposed::yes);
    const tensor2<T> v = product(tokens, w.w_v, transposed::yes);

    attention_weights_and_output<T> result{xt::xtensor<T, 3>::from_shape({n_heads, n, n}), tensor2<T>()};
    tensor2<T> concatenated = tensor2<T>::from_shape({n, width});
    for (std::size_t h = 0; h < n_heads; ++h) {
        const std::size_t first = h * d_head;
        tensor2<T> pattern = attention_scores(detail::column_block(q, first, d_head), detail::column_block(k, first, d_head),
                                              T(1) / std::sqrt(T(d_head)), mask);
        softmax_in_place(pattern, mask);
        const tensor2<T> head_values = detail::column_block(v, first, d_head);
        const tensor2<T> head_output = product(pattern, head_values);
        xt::view(concatenated, xt::all(), xt::range(first, first + d_head)) = head_output;
        xt::view(result.weights, h, xt::all(), xt::all()) = pattern;
    }
    result.output = product(concatenated, w.w_o, transposed::yes);
    return result;
}

} // namespace qkov::numeric
