// The model's own forward pass: token ids in, logits for every position out, in float32 or
// float64, over the decoder stacks of GPT-2, GPT-NeoX and Llama.
//
//   x_0 = E[tokens] (+ P[0 .. n) for GPT-2's learned positions)
//   sequential (GPT-2, Llama, NeoX without use_parallel_residual):
//       h = x + attn(norm_1(x)),  x' = h + mlp(norm_2(h))
//   parallel (GPT-NeoX, use_parallel_residual):
//       x' = x + attn(norm_1(x)) + mlp(norm_2(x))
//   logits = norm_f(x_L) U^T
// The MLP is out(act(in x + b)) + b (GPT-2: gelu_new; NeoX: erf gelu) or, for Llama, SwiGLU
// down(silu(gate x) * up x). Attention is attention_block.hpp (numeric/'s layer).
//
// Attention patterns are streamed: a visitor sees each (layer, head) pattern once, while it is
// alive, so detectors can reduce it to statistics without the model's L x L x heads ever existing.
// keep_patterns() is the visitor that keeps them all, when that is what is wanted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/forward/attention_block.hpp"
#include "qkov/forward/decoder_weights.hpp"
#include "qkov/model/attention_model.hpp"

namespace qkov::forward {

using token_id = std::uint32_t;

/// Every head's pattern of one run, kept: patterns[layer][head] is n x n.
template <class T>
struct kept_patterns {
    std::vector<std::vector<tensor2<T>>> patterns;
};

/// A visitor that copies every pattern into `into` (L x H x n x n values: for short sequences).
template <class T>
pattern_visitor<T> keep_patterns(kept_patterns<T>& into, std::size_t layers, std::size_t heads)
{
    into.patterns.assign(layers, std::vector<tensor2<T>>(heads));
    return [&into](std::size_t l, std::size_t h, const tensor2<T>& p) { into.patterns.at(l).at(h) = p; };
}

template <class T>
class decoder {
public:
    using scalar = T;
    /// The longest sequence the pass runs: one head's n x n pattern in T stays within 1 GiB.
    static constexpr std::size_t largest_sequence = sizeof(T) == 4 ? 16384 : 11585;

    /// Reads every weight the pass needs from the model, in T; a missing tensor is a model_file_error naming it.
    explicit decoder(const model::attention_model& m) : w_(read_decoder_weights<T>(m)) {}
    explicit decoder(decoder_weights<T> w) : w_(std::move(w)) {}

    [[nodiscard]] const decoder_weights<T>& weights() const { return w_; }
    [[nodiscard]] const io::model_config& config() const { return w_.config; }

    /// Logits (n x V) for every position of the sequence; visit sees every head's pattern.
    [[nodiscard]] tensor2<T> logits(std::span<const token_id> tokens, const pattern_visitor<T>& visit = {}) const
    {
        return numeric::product(normalized(residual_stream(tokens, visit), w_.final_norm), w_.output_embedding(), numeric::transposed::yes);
    }

    /// The residual stream after the last block (n x D), before the final norm: the whole pass
    /// but the unembedding, for what needs only the patterns (the head detectors).
    [[nodiscard]] tensor2<T> residual_stream(std::span<const token_id> tokens, const pattern_visitor<T>& visit = {}) const
    {
        tensor2<T> x = embed(tokens);
        const auto rope = rope_setting<T>(w_.config, tokens.size());
        for (std::size_t l = 0; l < w_.blocks.size(); ++l) x = block(l, x, rope, visit);
        return x;
    }

    /// Layer l's attention block on inputs that stand in for its normed residual (positions 0 .. n - 1).
    [[nodiscard]] tensor2<T> attention(std::size_t l, const tensor2<T>& normed, const pattern_visitor<T>& visit = {}) const
    {
        require_layer(l);
        if (normed.shape()[1] != w_.config.hidden_size)
            throw std::invalid_argument("qkov: the attention block's input has " + std::to_string(normed.shape()[1]) + " columns, the model width is " +
                                        std::to_string(w_.config.hidden_size));
        return attention_block(normed, w_.blocks[l].attention, w_.config, l, rope_setting<T>(w_.config, normed.shape()[0]), visit);
    }

private:
    void require_layer(std::size_t l) const
    {
        if (l >= w_.blocks.size()) throw std::out_of_range("qkov: layer " + std::to_string(l) + " of a model with " + std::to_string(w_.blocks.size()));
    }

    tensor2<T> embed(std::span<const token_id> tokens) const
    {
        const std::size_t n = tokens.size(), D = w_.config.hidden_size, V = w_.embedding.shape()[0];
        if (n == 0) throw std::invalid_argument("qkov: the forward pass needs at least one token");
        if (w_.positions.size() != 0 && n > w_.positions.shape()[0])
            throw std::invalid_argument("qkov: " + std::to_string(n) + " tokens, but the model has learned positions for " +
                                        std::to_string(w_.positions.shape()[0]));
        // A RoPE model declares its context without a table to bound it, and each head's pattern is
        // n x n: both are checked here, before the first n x D buffer, so a long sequence is an
        // error naming the bound, not a run past the model's context or an allocation of gigabytes.
        if (w_.config.max_positions != 0 && n > w_.config.max_positions)
            throw std::invalid_argument("qkov: " + std::to_string(n) + " tokens, but the model's context is " + std::to_string(w_.config.max_positions) +
                                        " positions");
        if (n > largest_sequence)
            throw std::invalid_argument("qkov: " + std::to_string(n) + " tokens make each head's attention pattern " + std::to_string(n) + " x " +
                                        std::to_string(n) + "; the forward pass takes at most " + std::to_string(largest_sequence) +
                                        " tokens (a pattern of 1 GiB in " + (sizeof(T) == 4 ? "float32" : "float64") + ")");
        tensor2<T> x = tensor2<T>::from_shape({n, D});
        for (std::size_t t = 0; t < n; ++t) {
            if (tokens[t] >= V)
                throw std::out_of_range("qkov: token " + std::to_string(tokens[t]) + " at position " + std::to_string(t) + " is outside the vocabulary of " +
                                        std::to_string(V));
            for (std::size_t j = 0; j < D; ++j) x(t, j) = w_.embedding(tokens[t], j) + (w_.positions.size() != 0 ? w_.positions(t, j) : T(0));
        }
        return x;
    }

    tensor2<T> mlp(const tensor2<T>& x, const mlp_params<T>& p) const
    {
        tensor2<T> hidden = detail::affine(x, p.w_in, p.b_in);
        if (p.w_gate.size() != 0) {  // SwiGLU: act(gate x) * (up x)
            tensor2<T> gate = numeric::product(x, p.w_gate, numeric::transposed::yes);
            activate_in_place(w_.mlp_activation, gate.data(), gate.size());
            for (std::size_t i = 0; i < hidden.size(); ++i) hidden.data()[i] *= gate.data()[i];
        } else {
            activate_in_place(w_.mlp_activation, hidden.data(), hidden.size());
        }
        return detail::affine(hidden, p.w_out, p.b_out);
    }

    tensor2<T> block(std::size_t l, const tensor2<T>& x, const std::optional<rope_rotation_setting<T>>& rope, const pattern_visitor<T>& visit) const
    {
        const auto& b = w_.blocks[l];
        tensor2<T> out = x + attention_block(normalized(x, b.attention_norm), b.attention, w_.config, l, rope, visit);
        // Parallel: the MLP reads the block's input; sequential: the residual after attention.
        out += mlp(normalized(w_.config.parallel_residual ? x : out, b.mlp_norm), b.mlp);
        detail::require_finite(out, "layer " + std::to_string(l) + "'s residual stream after its MLP");
        return out;
    }

    decoder_weights<T> w_;
};

} // namespace qkov::forward
