// One layer's attention block on a batch of normed tokens, through numeric/'s run-time attention:
// BLAS products (blas_products.hpp), RoPE on the query and key batches (rope_batch.hpp) and the
// fused causal softmax pattern (attention_pattern.hpp). Nothing here computes a score or a softmax
// itself.
//
// Per layer: Q = x W_q^T + b_q, K and V likewise, all heads in one product each. Per key/value
// head, its keys are rotated once (GQA: the query heads of a group share them); per query head, its
// queries are rotated, its pattern computed (1/sqrt(d), causal), handed to the visitor, and used at
// once: z_h = pattern V_h. Only one L x L pattern is alive at a time. The block's output is
// [z_0 ... z_{H-1}] W_o^T + b_o. A second, optional visitor also sees the head's values V_h (n x d),
// for what needs the head's output and not only where it attends (the copying detector).
//
// RoPE is per layer (model_config::rope_at): every rotating layer of a model shares one schedule,
// so a run tabulates its angles once and a NoPE layer (SmolLM3) is handed no rotation.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "qkov/forward/decoder_weights.hpp"
#include "qkov/forward/rope_schedule.hpp"
#include "qkov/numeric/attention_pattern.hpp"
#include "qkov/numeric/multi_head_attention.hpp"
#include "qkov/numeric/rope_batch.hpp"
#include "qkov/numeric/tabulated_angles.hpp"

namespace qkov::forward {

/// Called once per (layer, head) with that head's pattern (n x n, row = query, causal).
template <class T>
using pattern_visitor = std::function<void(std::size_t layer, std::size_t head, const tensor2<T>& pattern)>;

/// Called once per (layer, head) with its pattern and its values V_h (n x d, the kv head's under
/// GQA): the head's output before W_o is pattern V_h.
template <class T>
using value_visitor = std::function<void(std::size_t layer, std::size_t head, const tensor2<T>& pattern, const tensor2<T>& values)>;

/// The rotation of one run: the layout of a head and cos/sin tabulated for the run's positions.
template <class T>
struct rope_rotation_setting {
    rope_layout layout;
    numeric::tabulated_angles<schedule_angles<T>> angles;
};

/// The run's rotation, for the layers that rotate; none when no layer does.
template <class T>
std::optional<rope_rotation_setting<T>> rope_setting(const io::model_config& c, std::size_t positions)
{
    const bool rotates = c.rope_layers.empty() || std::find(c.rope_layers.begin(), c.rope_layers.end(), true) != c.rope_layers.end();
    if (!c.rope || !rotates) return std::nullopt;  // a model whose every layer is NoPE has nothing to tabulate
    return rope_rotation_setting<T>{rope_layout{c.head_dim, c.rope->rotary_dim, c.rope->pairing},
                                    numeric::tabulated_angles<schedule_angles<T>>(rope_angles<T>(*c.rope), 0, positions)};
}

namespace detail {
/// Throws unless every value of `t` is finite. The weights were checked finite when read, so a
/// NaN or infinity here is the arithmetic's: finite weights near the float maximum overflow in
/// float32, and the scores of every later step would be NaN, reported as if measured.
template <class T>
void require_finite(const tensor2<T>& t, const std::string& what)
{
    for (std::size_t i = 0; i < t.size(); ++i)
        if (!std::isfinite(t.data()[i]))
            throw std::runtime_error("qkov: " + what + " is not finite although every weight is: the " + (sizeof(T) == 4 ? "float32" : "float64") +
                                     " forward pass overflows" + (sizeof(T) == 4 ? " (--dtype float64 computes in double)" : ""));
}

/// out = x W^T (+ b on every row).
template <class T>
tensor2<T> affine(const tensor2<T>& x, const tensor2<T>& w, const std::vector<T>& b)
{
    tensor2<T> out = numeric::product(x, w, numeric::transposed::yes);
    if (!b.empty())
        for (std::size_t t = 0; t < out.shape()[0]; ++t)
            for (std::size_t j = 0; j < b.size(); ++j) out(t, j) += b[j];
    return out;
}
} // namespace detail

/// The rotation layer `layer` applies: the run's table when the layer rotates, nullptr for a NoPE layer.
template <class T>
const rope_rotation_setting<T>* layer_rotation(const std::optional<rope_rotation_setting<T>>& run, const io::model_config& c, std::size_t layer)
{
    return run && c.rope_at(layer) ? &*run : nullptr;
}

/// The block's output (n x D) for normed tokens x (n x D) at positions 0 .. n - 1; `rope` is the
/// layer's rotation (layer_rotation), nullptr for none.
template <class T>
tensor2<T> attention_block(const tensor2<T>& x, const attention_params<T>& a, const io::model_config& c, std::size_t layer,
                           const rope_rotation_setting<T>* rope, const pattern_visitor<T>& visit = {}, const value_visitor<T>& visit_values = {})
{
    const std::size_t n = x.shape()[0], d = c.head_dim, H = c.heads, group = c.heads / c.kv_heads;
    c.require_full_attention(layer, n, "a sequence");  // a sliding window that would cut it: refused, not computed as full attention
    const tensor2<T> q = detail::affine(x, a.w_q, a.b_q), k = detail::affine(x, a.w_k, a.b_k), v = detail::affine(x, a.w_v, a.b_v);
    std::vector<tensor2<T>> keys, values;
    for (std::size_t j = 0; j < c.kv_heads; ++j) {
        keys.push_back(numeric::detail::column_block(k, j * d, d));
        values.push_back(numeric::detail::column_block(v, j * d, d));
        if (rope) numeric::rotate_rows(keys.back(), rope->layout, rope->angles);
    }
    const T scale = T(1) / std::sqrt(T(d));
    tensor2<T> z = tensor2<T>::from_shape({n, H * d});
    for (std::size_t h = 0; h < H; ++h) {
        tensor2<T> queries = numeric::detail::column_block(q, h * d, d);
        if (rope) numeric::rotate_rows(queries, rope->layout, rope->angles);
        const tensor2<T> pattern = numeric::attention_pattern(queries, keys[h / group], scale, numeric::masking::causal);
        const auto head = [&] { return "layer " + std::to_string(layer) + " head " + std::to_string(h) + "'s "; };
        detail::require_finite(pattern, head() + "attention pattern");
        if (visit) visit(layer, h, pattern);
        if (visit_values) visit_values(layer, h, pattern, values[h / group]);
        numeric::product_into(pattern, values[h / group], numeric::transposed::no, z, h * d);  // head h's columns of z, in place
        detail::require_finite(numeric::detail::column_block(z, h * d, d), head() + "output (its pattern times its values)");
    }
    tensor2<T> out = detail::affine(z, a.w_o, a.b_o);
    detail::require_finite(out, "layer " + std::to_string(layer) + "'s attention output (through W_o)");
    return out;
}

} // namespace qkov::forward
