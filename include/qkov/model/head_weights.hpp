// One attention head's weights in qkov's column convention, and the named conversion to the row
// convention of TransformerLens (and of fixtures/models/reference.json).
//
// Column convention (docs/ARCHITECTURE.md, "Conventions to keep"): q = W_q x + b_q with W_q in R^{d x D}; likewise k and v; the
// head adds W_o z to the residual, W_o in R^{D x d}. W_q is exactly the d x D row slice of an
// nn.Linear weight. Row convention: q = x W_Q + b_Q with W_Q = W_q^T (D x d), and the output is
// z W_O with W_O = W_o^T (d x D). The two conversions are each other's inverse.
#pragma once

#include <cstddef>

#include <xtensor/xtensor.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xmanipulation.hpp>

namespace qkov::model {

using matrix = xt::xtensor<double, 2>;
using vector = xt::xtensor<double, 1>;

struct head_weights {
    std::size_t layer = 0, head = 0;
    std::size_t kv_head = 0;  ///< the key/value head it reads (GQA: head / (H / Hkv))
    matrix w_q, w_k, w_v;     ///< d x D
    matrix w_o;               ///< D x d
    vector b_q, b_k, b_v;     ///< length d, or empty when the model has no such bias
};

struct row_convention_head {
    matrix W_Q, W_K, W_V;  ///< D x d
    matrix W_O;            ///< d x D
    vector b_Q, b_K, b_V;
};

inline row_convention_head to_row_convention(const head_weights& h)
{
    return {xt::transpose(h.w_q), xt::transpose(h.w_k), xt::transpose(h.w_v), xt::transpose(h.w_o), h.b_q, h.b_k, h.b_v};
}

inline head_weights from_row_convention(const row_convention_head& r, std::size_t layer, std::size_t head, std::size_t kv_head)
{
    return {layer, head, kv_head, xt::transpose(r.W_Q), xt::transpose(r.W_K), xt::transpose(r.W_V), xt::transpose(r.W_O), r.b_Q, r.b_K, r.b_V};
}

} // namespace qkov::model
