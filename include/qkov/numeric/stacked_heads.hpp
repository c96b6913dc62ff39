// Several heads that read the same tokens, their W_Q and W_K stacked row-wise (rows h d ..
// h d + d - 1 are head h's): the queries or keys of every head then come from one product, one
// BLAS call with a wide output instead of one thin n x D x d product per head (the same
// multiply-adds).
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/numeric/blas_products.hpp"
#include "qkov/numeric/shape_errors.hpp"

namespace qkov::numeric {

struct stacked_heads {
    tensor2<double> w_q, w_k;  ///< (heads d) x D
    std::vector<bool> rope;    ///< per head: RoPE on its query and keys, or none
    std::size_t head_width;    ///< d
};

/// Stacks heads given as d x D matrices W_Q[h], W_K[h] (the column convention, q = W_Q x); every
/// head must have the same shape, and `rope` says per head whether it rotates.
inline stacked_heads stack_heads(const std::vector<tensor2<double>>& w_q, const std::vector<tensor2<double>>& w_k,
                                 const std::vector<bool>& rope)
{
    if (w_q.empty() || w_k.size() != w_q.size() || rope.size() != w_q.size())
        throw std::invalid_argument("qkov: stack_heads needs at least one head and as many W_K and RoPE flags as W_Q; got " +
                                    std::to_string(w_q.size()) + " W_Q, " + std::to_string(w_k.size()) + " W_K, " +
                                    std::to_string(rope.size()) + " RoPE flags");
    const std::size_t heads = w_q.size(), d = w_q.front().shape()[0], D = w_q.front().shape()[1];
    stacked_heads s{tensor2<double>::from_shape({heads * d, D}), tensor2<double>::from_shape({heads * d, D}), rope, d};
    for (std::size_t h = 0; h < heads; ++h) {
        require_shape(w_q[h].shape() == w_q.front().shape() && w_k[h].shape() == w_q.front().shape(), "a stacked head's W_Q or W_K",
                      w_k[h], "every head needs the same d x D shape");
        std::copy_n(w_q[h].data(), d * D, s.w_q.data() + h * d * D);
        std::copy_n(w_k[h].data(), d * D, s.w_k.data() + h * d * D);
    }
    return s;
}

} // namespace qkov::numeric
