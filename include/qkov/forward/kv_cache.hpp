// The forward pass one position at a time, with each layer's keys and values kept (a key/value
// cache): what generation needs. decoder::logits over a whole sequence costs O(n) positions per
// call, so writing n tokens by running the prefix again each step costs O(n^2) positions of
// projections and MLP; with the cache each new token costs one position's projections and MLP,
// plus its query against the n keys already kept. At Llama-3-8B's size that is the difference
// between one 8B-parameter pass per token and n of them.
//
// Several sequences run side by side (one row each): a layer's projections and MLP are one product
// over all of them, and a streamed pass reads each layer once per position for every sequence.
// Per layer, sequence and key/value head the cache holds the rotated keys and the values of every
// position so far (capacity x d each, zero beyond the positions written).
//
// The arithmetic is the uncached pass's (forward_pass.hpp, attention_block.hpp): the same norms,
// projections, MLP slices in the same order, RoPE from a table of the same angles, the score through
// numeric/'s BLAS block product scaled inside it and numeric/'s softmax of one row. Only the order
// of the products' sums differs, so the logits agree with decoder::logits on the whole sequence to
// rounding (tests/own_text_tests.cpp: 1e-12 in float64).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/forward/attention_block.hpp"
#include "qkov/forward/forward_pass.hpp"
#include "qkov/numeric/softmax.hpp"

namespace qkov::forward {

template <class T>
class kv_cache {
public:
    /// `sequences` sequences run side by side, each up to `capacity` positions. The decoder must
    /// outlive the cache. Throws when the capacity is 0 or longer than the pass runs (the model's
    /// context, its learned positions, a sliding window).
    kv_cache(const decoder<T>& pass, std::size_t sequences, std::size_t capacity) : pass_(&pass), sequences_(sequences), capacity_(capacity)
    {
        const auto& c = pass.config();
        if (sequences == 0) throw std::invalid_argument("qkov: a key/value cache needs at least one sequence");
        if (capacity == 0 || capacity > decoder<T>::largest_sequence)
            throw std::invalid_argument("qkov: a key/value cache of " + std::to_string(capacity) + " positions; the pass runs 1 to " +
                                        std::to_string(decoder<T>::largest_sequence));
        if (c.max_positions != 0 && capacity > c.max_positions)
            throw std::invalid_argument("qkov: " + std::to_string(capacity) + " positions, but the model's context is " + std::to_string(c.max_positions) +
                                        " positions");
        for (std::size_t l = 0; l < c.layers; ++l) c.require_full_attention(l, capacity, "a cached sequence");
        // Every slot zero: the value product reads all `capacity` rows, and the weights past the
        // positions written are 0, which must meet finite values (0 x NaN would be NaN).
        const std::size_t slots = c.layers * sequences * c.kv_heads;
        keys_.assign(slots, tensor2<T>(std::array<std::size_t, 2>{capacity, c.head_dim}, T(0)));
        values_ = keys_;
        rope_ = rope_setting<T>(c, capacity);
    }

    /// Positions each sequence holds so far.
    [[nodiscard]] std::size_t length() const { return length_; }
    [[nodiscard]] std::size_t sequences() const { return sequences_; }

    /// Appends next[s] to sequence s at position length() and returns that position's logits
    /// (sequences x V, row s for sequence s).
    tensor2<T> step(std::span<const token_id> next)
    {
        const auto& c = pass_->config();
        if (next.size() != sequences_)
            throw std::invalid_argument("qkov: " + std::to_string(next.size()) + " tokens for a cache of " + std::to_string(sequences_) + " sequences");
        if (length_ >= capacity_) throw std::length_error("qkov: the key/value cache holds its " + std::to_string(capacity_) + " positions already");
        const std::size_t p = length_, S = sequences_, D = c.hidden_size;
        tensor2<T> x = tensor2<T>::from_shape({S, D});
        for (std::size_t s = 0; s < S; ++s) {
            const tensor2<T> row = pass_->embed(next.subspan(s, 1), p);
            std::copy_n(row.data(), D, x.data() + s * D);
        }
        for (std::size_t l = 0; l < c.layers; ++l) x = layer(l, std::move(x));
        ++length_;
        return pass_->unembed(x);
    }

private:
    [[nodiscard]] std::size_t slot(std::size_t l, std::size_t s, std::size_t kv) const { return (l * sequences_ + s) * pass_->config().kv_heads + kv; }

    /// Layer l at the position being written, for every sequence's row of x.
    tensor2<T> layer(std::size_t l, tensor2<T> x)
    {
        const auto& c = pass_->config();
        const auto held = pass_->block_weights(l);
        const auto& b = *held;
        const auto& a = b.attention;
        const std::size_t p = length_, S = sequences_, d = c.head_dim, H = c.heads, group = c.heads / c.kv_heads;
        const tensor2<T> normed = normalized(x, b.attention_norm);
        const tensor2<T> q = detail::affine(normed, a.w_q, a.b_q), k = detail::affine(normed, a.w_k, a.b_k), v = detail::affine(normed, a.w_v, a.b_v);
        const rope_rotation_setting<T>* rope = layer_rotation(rope_, c, l);
        const T scale = T(1) / std::sqrt(T(d));
        tensor2<T> z = tensor2<T>::from_shape({S, H * d}), one = tensor2<T>::from_shape({1, d}), weights = tensor2<T>::from_shape({1, capacity_});
        // Head h's part of row s of `from`, rotated to position p where the layer rotates.
        const auto rotated = [&](const tensor2<T>& from, std::size_t s, std::size_t h) -> const tensor2<T>& {
            std::copy_n(from.data() + s * from.shape()[1] + h * d, d, one.data());
            if (rope) numeric::rotate_rows(one, rope->layout, rope->angles, static_cast<std::int64_t>(p));
            return one;
        };
        for (std::size_t s = 0; s < S; ++s) {
            for (std::size_t j = 0; j < c.kv_heads; ++j) {
                std::copy_n(rotated(k, s, j).data(), d, keys_[slot(l, s, j)].data() + p * d);
                std::copy_n(v.data() + s * v.shape()[1] + j * d, d, values_[slot(l, s, j)].data() + p * d);
            }
            for (std::size_t h = 0; h < H; ++h) {
                const std::size_t kv = slot(l, s, h / group);
                // The query against keys 0 .. p (scaled inside the product, as attention_pattern
                // does), its softmax, then the weights against every value row (0 past p).
                numeric::gemm_block(rotated(q, s, h), 0, 1, keys_[kv], numeric::transposed::yes, 0, p + 1, scale, weights, 0, 0);
                numeric::softmax_row(weights.data(), p + 1);
                std::fill(weights.data() + p + 1, weights.data() + capacity_, T(0));
                detail::require_finite(weights, "layer " + std::to_string(l) + " head " + std::to_string(h) + "'s attention pattern");
                numeric::gemm_block(weights, 0, 1, values_[kv], numeric::transposed::no, 0, d, T(1), z, s, h * d);
            }
        }
        tensor2<T> after_attention = x + detail::affine(z, a.w_o, a.b_o);
        detail::require_finite(after_attention, "layer " + std::to_string(l) + "'s attention output (through W_o)");
        // Parallel: the MLP reads the block's input; sequential: the residual after attention.
        const tensor2<T> mlp_input = normalized(c.parallel_residual ? x : after_attention, b.mlp_norm);
        // The slices summed in order, then b_out, then added to the residual: run_layer's order.
        const std::size_t slices = pass_->w_.source ? detail::mlp_slice_count(b.mlp.width) : b.mlp.slices.size();
        tensor2<T> mlp_out;
        for (std::size_t i = 0; i < slices; ++i) {
            if (i == 0) mlp_out = pass_->mlp_part(mlp_input, *pass_->mlp_slice_of(b, l, i));
            else mlp_out += pass_->mlp_part(mlp_input, *pass_->mlp_slice_of(b, l, i));
        }
        if (!b.mlp.b_out.empty())
            for (std::size_t s = 0; s < S; ++s)
                for (std::size_t j = 0; j < b.mlp.b_out.size(); ++j) mlp_out(s, j) += b.mlp.b_out[j];
        after_attention += mlp_out;
        detail::require_finite(after_attention, "layer " + std::to_string(l) + "'s residual stream after its MLP");
        return after_attention;
    }

    const decoder<T>* pass_;
    std::size_t sequences_, capacity_, length_ = 0;
    std::optional<rope_rotation_setting<T>> rope_;
    std::vector<tensor2<T>> keys_, values_;  ///< per (layer, sequence, kv head): capacity x d, rows 0 .. length - 1 written
};

} // namespace qkov::forward
