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
// down(silu(gate x) * up x). Attention is attention_block.hpp (numeric/'s layer), with RoPE in the
// layers that rotate (model_config::rope_at; SmolLM3's NoPE layers do not).
//
// Attention patterns are streamed: a visitor sees each (layer, head) pattern once, while it is
// alive, so detectors can reduce it to statistics without the model's L x L x heads ever existing.
// keep_patterns() is the visitor that keeps them all, when that is what is wanted.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/forward/attention_block.hpp"
#include "qkov/forward/decoder_weights.hpp"
#include "qkov/forward/token_id.hpp"
#include "qkov/model/attention_model.hpp"
#include "qkov/numeric/parallel_blocks.hpp"

namespace qkov::forward {

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

/// Called once per layer with the normed input of its attention block (n x D).
template <class T>
using layer_input_visitor = std::function<void(std::size_t layer, const tensor2<T>& normed)>;

template <class T>
class layer_stepper;

template <class T>
class kv_cache;

template <class T>
class decoder {
public:
    using scalar = T;
    /// The longest sequence the pass runs: one head's n x n pattern in T stays within 1 GiB.
    static constexpr std::size_t largest_sequence = sizeof(T) == 4 ? 16384 : 11585;

    /// Reads every weight the pass needs from the model, in T; a missing tensor is a model_file_error
    /// naming it. Streamed (decoder_weights.hpp): m must outlive the decoder.
    explicit decoder(const model::attention_model& m, weight_residence residence = weight_residence::resident)
        : w_(read_decoder_weights<T>(m, residence))
    {
    }
    explicit decoder(decoder_weights<T> w) : w_(std::move(w)) {}

    [[nodiscard]] const decoder_weights<T>& weights() const { return w_; }
    [[nodiscard]] const io::model_config& config() const { return w_.config; }

    /// Logits (n x V) for every position of the sequence; visit sees every head's pattern.
    [[nodiscard]] tensor2<T> logits(std::span<const token_id> tokens, const pattern_visitor<T>& visit = {}) const
    {
        return unembed(residual_stream(tokens, visit));
    }

    /// Logits (rows x V) of residual rows after the last block: the final norm, then U.
    [[nodiscard]] tensor2<T> unembed(const tensor2<T>& residual) const
    {
        const tensor2<T> normed = normalized(residual, w_.final_norm);
        if (!w_.source) return numeric::product(normed, w_.output_embedding(), numeric::transposed::yes);
        tensor2<T> out = tensor2<T>::from_shape({normed.shape()[0], vocabulary()});
        for_each_output_block([&](std::size_t first, const tensor2<T>& rows) {
            const tensor2<T> part = numeric::product(normed, rows, numeric::transposed::yes);
            for (std::size_t i = 0; i < part.shape()[0]; ++i) std::copy_n(part.data() + i * part.shape()[1], part.shape()[1], out.data() + i * out.shape()[1] + first);
        });
        return out;
    }

    /// The rows of the unembedding U (logits = U x) in blocks of at most block_rows, in order:
    /// f(first row, rows x D). Streamed, each block is read from the file; never V x D at once.
    void for_each_output_block(const std::function<void(std::size_t first, const tensor2<T>& rows)>& f, std::size_t block_rows = 4096) const
    {
        const std::size_t V = vocabulary(), D = w_.config.hidden_size;
        for (std::size_t first = 0; first < V; first += block_rows) {
            const std::size_t n = std::min(block_rows, V - first);
            if (w_.source) {
                f(first, detail::converted<T>(*w_.source->unembedding_rows(first, n)));
            } else {
                tensor2<T> rows = tensor2<T>::from_shape({n, D});
                std::copy_n(w_.output_embedding().data() + first * D, n * D, rows.data());
                f(first, rows);
            }
        }
    }

    /// V: the rows of the embedding.
    [[nodiscard]] std::size_t vocabulary() const { return w_.source ? w_.config.vocab_size : w_.embedding.shape()[0]; }

    /// The residual stream after the last block (n x D), before the final norm: the whole pass
    /// but the unembedding, for what needs only the patterns and values (the head detectors).
    [[nodiscard]] tensor2<T> residual_stream(std::span<const token_id> tokens, const pattern_visitor<T>& visit = {},
                                             const value_visitor<T>& visit_values = {}) const
    {
        return residual_stream_of(embed(tokens), visit, {}, visit_values);
    }

    /// The same pass from residual vectors the caller built (n x D, positions 0 .. n - 1, learned
    /// positions not added): what a token sequence cannot express, such as the mean token embedding
    /// at every position (the scan's proxy pass, scan/proxy_pass.hpp). `on_input` sees each
    /// layer's normed attention input.
    [[nodiscard]] tensor2<T> residual_stream_of(tensor2<T> x, const pattern_visitor<T>& visit = {}, const layer_input_visitor<T>& on_input = {},
                                                const value_visitor<T>& visit_values = {}) const
    {
        if (x.shape()[1] != w_.config.hidden_size)
            throw std::invalid_argument("qkov: residual vectors of width " + std::to_string(x.shape()[1]) + " for a model of width " +
                                        std::to_string(w_.config.hidden_size));
        const auto rope = rope_setting<T>(w_.config, x.shape()[0]);
        for (std::size_t l = 0; l < w_.config.layers; ++l) x = block(l, std::move(x), layer_rotation(rope, w_.config, l), visit, on_input, visit_values);
        return x;
    }

    /// A streamed pass lets go of the layer it read last (the next run reads it again); resident: nothing.
    void release_streamed_layer() const
    {
        const std::lock_guard lock(streamed_->mutex);
        streamed_->block.reset();
    }

    /// Layer l's heads written into the space the unembedding reads: diag(g_f) [C] W_o (D x H d;
    /// head h's columns h d .. h d + d), g_f the final norm's scale, C the centring of a LayerNorm.
    /// The norm's division by the row's size and its bias are left out: the first scales every
    /// logit of a query alike, the second is the same for every head, so neither is a head's doing.
    [[nodiscard]] tensor2<T> heads_written_for_logits(std::size_t l) const
    {
        require_layer(l);
        tensor2<T> out = block_weights(l)->attention.w_o;  // D x H d
        const std::size_t D = out.shape()[0], columns = out.shape()[1];
        const auto& f = w_.final_norm;
        const std::vector<double> mean = f.kind == io::norm_kind::layer_norm ? written_column_means(out) : std::vector<double>(columns, 0.0);
        for (std::size_t r = 0; r < D; ++r)
            for (std::size_t i = 0; i < columns; ++i) out(r, i) = static_cast<T>((double(out(r, i)) - mean[i]) * double(f.weight[r]));
        return out;
    }

    /// Every head of layer l read straight into logits, a block of vocabulary rows at a time:
    /// f(first row, U_block diag(g_f) [C] W_o), rows x H d (heads_written_for_logits). Never V x H d at once.
    void for_each_head_unembedding_block(std::size_t l, const std::function<void(std::size_t first, const tensor2<T>& maps)>& f,
                                         std::size_t block_rows = 4096) const
    {
        const tensor2<T> written = heads_written_for_logits(l);
        for_each_output_block([&](std::size_t first, const tensor2<T>& rows) { f(first, numeric::product(rows, written, numeric::transposed::no)); },
                              block_rows);
    }

    /// Head h of layer l read straight into logits (V x d): its columns of the blocks above (every
    /// head's are made: one head's map for a check, not a loop over heads, which the blocks serve).
    [[nodiscard]] tensor2<T> head_unembedding(std::size_t l, std::size_t h) const
    {
        const std::size_t d = w_.config.head_dim;
        if (h >= w_.config.heads) throw std::out_of_range("qkov: head " + std::to_string(h) + " of a layer with " + std::to_string(w_.config.heads));
        tensor2<T> out = tensor2<T>::from_shape({vocabulary(), d});
        for_each_head_unembedding_block(l, [&](std::size_t first, const tensor2<T>& maps) {
            for (std::size_t v = 0; v < maps.shape()[0]; ++v) std::copy_n(maps.data() + v * maps.shape()[1] + h * d, d, out.data() + (first + v) * d);
        });
        return out;
    }

    /// Layer l's attention block on inputs that stand in for its normed residual (positions 0 .. n - 1).
    [[nodiscard]] tensor2<T> attention(std::size_t l, const tensor2<T>& normed, const pattern_visitor<T>& visit = {}) const
    {
        require_layer(l);
        if (normed.shape()[1] != w_.config.hidden_size)
            throw std::invalid_argument("qkov: the attention block's input has " + std::to_string(normed.shape()[1]) + " columns, the model width is " +
                                        std::to_string(w_.config.hidden_size));
        const auto rope = rope_setting<T>(w_.config, normed.shape()[0]);
        return attention_block(normed, block_weights(l)->attention, w_.config, l, layer_rotation(rope, w_.config, l), visit);
    }

    /// x_0 of a token sequence at positions first .. first + n - 1: the embedding rows (+ those
    /// learned positions). first > 0 is one step of a cached pass (kv_cache.hpp).
    [[nodiscard]] tensor2<T> embed(std::span<const token_id> tokens, std::size_t first = 0) const
    {
        const std::size_t n = tokens.size(), D = w_.config.hidden_size, V = vocabulary();
        if (n == 0) throw std::invalid_argument("qkov: the forward pass needs at least one token");
        if (first > largest_sequence) throw std::invalid_argument("qkov: position " + std::to_string(first) + " is past every sequence the pass runs");
        const std::size_t end = first + n;  // no overflow: first is bounded above, n is a span's size
        if (w_.positions.size() != 0 && end > w_.positions.shape()[0])
            throw std::invalid_argument("qkov: " + std::to_string(end) + " tokens, but the model has learned positions for " +
                                        std::to_string(w_.positions.shape()[0]));
        // A RoPE model declares its context without a table to bound it, and each head's pattern is
        // n x n: both are checked here, before the first n x D buffer, so a long sequence is an
        // error naming the bound, not a run past the model's context or an allocation of gigabytes.
        if (w_.config.max_positions != 0 && end > w_.config.max_positions)
            throw std::invalid_argument("qkov: " + std::to_string(end) + " tokens, but the model's context is " + std::to_string(w_.config.max_positions) +
                                        " positions");
        if (end > largest_sequence)
            throw std::invalid_argument("qkov: " + std::to_string(end) + " tokens make each head's attention pattern " + std::to_string(end) + " x " +
                                        std::to_string(end) + "; the forward pass takes at most " + std::to_string(largest_sequence) +
                                        " tokens (a pattern of 1 GiB in " + (sizeof(T) == 4 ? "float32" : "float64") + ")");
        tensor2<T> x = tensor2<T>::from_shape({n, D});
        for (std::size_t t = 0; t < n; ++t) {
            if (tokens[t] >= V)
                throw std::out_of_range("qkov: token " + std::to_string(tokens[t]) + " at position " + std::to_string(t) + " is outside the vocabulary of " +
                                        std::to_string(V));
            if (w_.source) {
                const auto row = detail::converted<T>(*w_.source->embedding_rows(tokens[t], 1));
                std::copy_n(row.data(), D, x.data() + t * D);
            } else {
                std::copy_n(w_.embedding.data() + tokens[t] * D, D, x.data() + t * D);
            }
            if (w_.positions.size() != 0)
                for (std::size_t j = 0; j < D; ++j) x(t, j) += w_.positions(first + t, j);
        }
        return x;
    }

private:
    void require_layer(std::size_t l) const
    {
        if (l >= w_.config.layers) throw std::out_of_range("qkov: layer " + std::to_string(l) + " of a model with " + std::to_string(w_.config.layers));
    }

    /// Layer l's weights: held (resident), or read from the file, the last layer read kept so the
    /// blocks of one run and a layer_stepper's sequences share one read (streamed; the MLP's
    /// slices are not in it, mlp_slice_of reads them).
    [[nodiscard]] std::shared_ptr<const block_params<T>> block_weights(std::size_t l) const
    {
        if (!w_.source) return std::shared_ptr<const block_params<T>>(std::shared_ptr<const void>(), &w_.blocks.at(l));  // not owned
        const std::lock_guard lock(streamed_->mutex);
        if (!streamed_->block || streamed_->layer != l) {
            streamed_->block.reset();  // the old layer goes before the new one is read (unless a caller still holds it)
            streamed_->block = std::make_shared<const block_params<T>>(read_block<T>(*w_.source, l, false));
            streamed_->layer = l;
        }
        return streamed_->block;
    }

    /// Slice s of layer l's MLP: held (resident) or read from the file (streamed; let go by the caller).
    [[nodiscard]] std::shared_ptr<const mlp_slice<T>> mlp_slice_of(const block_params<T>& b, std::size_t l, std::size_t s) const
    {
        if (!w_.source) return std::shared_ptr<const mlp_slice<T>>(std::shared_ptr<const void>(), &b.mlp.slices.at(s));  // not owned
        return std::make_shared<const mlp_slice<T>>(detail::read_mlp_slice<T>(*w_.source, l, s));
    }

    /// What one slice of an MLP adds for input rows x (n x D): out_slice(act(in_slice x + b) [* act(gate_slice x)]).
    [[nodiscard]] tensor2<T> mlp_part(const tensor2<T>& x, const mlp_slice<T>& p) const
    {
        tensor2<T> hidden = detail::affine(x, p.w_in, p.b_in);
        if (p.w_gate.size() != 0) {  // SwiGLU: act(gate x) * (up x)
            tensor2<T> gate = numeric::product(x, p.w_gate, numeric::transposed::yes);
            activate_in_place(w_.mlp_activation, gate.data(), gate.size());
            for (std::size_t i = 0; i < hidden.size(); ++i) hidden.data()[i] *= gate.data()[i];
        } else {
            activate_in_place(w_.mlp_activation, hidden.data(), hidden.size());
        }
        return numeric::product(hidden, p.w_out, numeric::transposed::yes);
    }

    /// Layer l over several sequences at once, each xs[i] replaced by the layer's output: every
    /// sequence's attention first, then the MLP one slice of its hidden width at a time over all
    /// of them, so a streamed slice is read once for every sequence and only one is held. Each
    /// sequence's numbers are the same whatever the other sequences: the slices are summed in
    /// order, then b_out added. on_input(i, normed) sees sequence i's normed attention input.
    void run_layer(std::size_t l, std::span<tensor2<T>*> xs, std::span<const rope_rotation_setting<T>* const> rope, const pattern_visitor<T>& visit,
                   const std::function<void(std::size_t, const tensor2<T>&)>& on_input, const value_visitor<T>& visit_values) const
    {
        const auto held = block_weights(l);
        const auto& b = *held;
        // Per sequence: the MLP's input and its output, the residual after attention in place of
        // the block's input (three residual-sized arrays, not four: 135 MB less for the scan's
        // 4,140 rows at Llama-3-8B's width).
        std::vector<tensor2<T>> mlp_input(xs.size()), mlp_out(xs.size());
        // The sequences are independent: on the workers (parallel_blocks.hpp, BLAS on each worker's
        // own thread), so a sequence's numbers do not depend on the thread count. A visitor sees
        // the heads in order, so with one the sequences run in order on this thread, and so does a
        // lone sequence (its products keep BLAS's threads); on_input is called under a lock, in any
        // order (its sequences' rows are disjoint).
        const bool in_order = xs.size() == 1 || static_cast<bool>(visit) || static_cast<bool>(visit_values);
        const auto each_sequence = [&](auto&& work) {
            if (in_order) {
                for (std::size_t i = 0; i < xs.size(); ++i) work(i);
            } else {
                numeric::for_each_block(xs.size(), work);
            }
        };
        std::mutex input_seen;
        each_sequence([&](std::size_t i) {
            const tensor2<T> normed = normalized(*xs[i], b.attention_norm);
            if (on_input) {
                const std::lock_guard lock(input_seen);
                on_input(i, normed);
            }
            tensor2<T> after_attention = *xs[i] + attention_block(normed, b.attention, w_.config, l, rope[i], visit, visit_values);
            // Parallel: the MLP reads the block's input; sequential: the residual after attention.
            mlp_input[i] = normalized(w_.config.parallel_residual ? *xs[i] : after_attention, b.mlp_norm);
            *xs[i] = std::move(after_attention);
        });
        const std::size_t slices = w_.source ? detail::mlp_slice_count(b.mlp.width) : b.mlp.slices.size();
        for (std::size_t s = 0; s < slices; ++s) {
            const auto slice = mlp_slice_of(b, l, s);
            each_sequence([&](std::size_t i) {
                if (s == 0) mlp_out[i] = mlp_part(mlp_input[i], *slice);
                else mlp_out[i] += mlp_part(mlp_input[i], *slice);
            });
        }
        for (std::size_t i = 0; i < xs.size(); ++i) {
            if (!b.mlp.b_out.empty())
                for (std::size_t t = 0; t < mlp_out[i].shape()[0]; ++t)
                    for (std::size_t j = 0; j < b.mlp.b_out.size(); ++j) mlp_out[i](t, j) += b.mlp.b_out[j];
            *xs[i] += mlp_out[i];
            detail::require_finite(*xs[i], "layer " + std::to_string(l) + "'s residual stream after its MLP");
        }
    }

    tensor2<T> block(std::size_t l, tensor2<T> x, const rope_rotation_setting<T>* rope, const pattern_visitor<T>& visit,
                     const layer_input_visitor<T>& on_input, const value_visitor<T>& visit_values) const
    {
        tensor2<T>* one[] = {&x};
        const rope_rotation_setting<T>* ropes[] = {rope};
        run_layer(l, one, ropes, visit, on_input ? [&](std::size_t, const tensor2<T>& normed) { on_input(l, normed); }
                                                 : std::function<void(std::size_t, const tensor2<T>&)>(), visit_values);
        return x;
    }

    struct streamed_layer {
        std::mutex mutex;
        std::size_t layer = 0;
        std::shared_ptr<const block_params<T>> block;
    };

    friend class layer_stepper<T>;
    friend class kv_cache<T>;

    decoder_weights<T> w_;
    std::shared_ptr<streamed_layer> streamed_ = std::make_shared<streamed_layer>();  // shared by copies: they read the same file
};

/// Several sequences through a decoder's layers under the caller's control: step() runs the next
/// layer over every sequence (one read of a streamed layer for all), so a caller can use layer l's
/// inputs, and let them go, before the pass goes on to layer l + 1. Each sequence's numbers are
/// residual_stream_of's to the bit. The decoder must outlive the stepper.
template <class T>
class layer_stepper {
public:
    layer_stepper(const decoder<T>& pass, std::vector<tensor2<T>> xs) : pass_(&pass), xs_(std::move(xs))
    {
        const auto& c = pass.config();
        for (const auto& x : xs_) {
            if (x.shape()[1] != c.hidden_size)
                throw std::invalid_argument("qkov: residual vectors of width " + std::to_string(x.shape()[1]) + " for a model of width " +
                                            std::to_string(c.hidden_size));
            ropes_.push_back(rope_setting<T>(c, x.shape()[0]));
        }
    }

    /// The layer step() runs next (config().layers once every layer has run).
    [[nodiscard]] std::size_t next_layer() const { return next_; }
    [[nodiscard]] const std::vector<tensor2<T>>& residuals() const { return xs_; }

    /// Runs layer next_layer() over every sequence; on_input(i, normed) sees sequence i's normed input.
    void step(const std::function<void(std::size_t i, const tensor2<T>& normed)>& on_input = {})
    {
        const auto& c = pass_->config();
        if (next_ >= c.layers) throw std::logic_error("qkov: the pass has run every layer");
        const std::size_t l = next_;
        std::vector<tensor2<T>*> xs;
        std::vector<const rope_rotation_setting<T>*> ropes;
        for (std::size_t i = 0; i < xs_.size(); ++i) xs.push_back(&xs_[i]), ropes.push_back(layer_rotation(ropes_[i], c, l));
        pass_->run_layer(l, xs, ropes, {}, on_input, {});  // one read of a streamed layer, and of each MLP slice, for every sequence
        ++next_;
    }

private:
    const decoder<T>* pass_;
    std::vector<tensor2<T>> xs_;
    std::vector<std::optional<rope_rotation_setting<T>>> ropes_;
    std::size_t next_ = 0;
};

} // namespace qkov::forward
