// The attention heads of a checkpoint, read lazily one layer at a time from its tensors.
//
// layer(l) reads only layer l's attention tensors, checks their shapes against the config and
// every value for NaN/Inf (naming the tensor and the index), and slices every query head into
// head_weights in the column convention (head_weights.hpp). Nothing else of the model is copied.
// Tensor names per family are io/model_family.hpp's; how each family packs its heads
// (fixtures/models/README.md has the tables):
//   gpt2      h.L.attn.c_attn (Conv1D [D, 3D], columns [q | k | v]), c_proj [D, D] rows by head
//   gpt_neox  layers.L.attention.query_key_value [3Hd, D], rows [head][q, k, v][d]; dense [D, Hd]
//   llama     layers.L.self_attn.{q,k,v,o}_proj (nn.Linear [out, in]), or a fused qkv_proj [(H+2Hkv)d, D]
// Names are looked up with and without the family's prefix ("transformer.", "gpt_neox.", "model.").
// The attention tensors' names below belong to each family's slicing and live with it.
// Biases and fused projections are detected from the tensor names, never from the config; a tensor
// the family's readers do not know (QK-norm, post-norms, ...) is refused when the model is opened
// (io/unmodelled_settings.hpp).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>


#include "qkov/io/checked_size.hpp"
#include "qkov/io/model_config.hpp"
#include "qkov/io/model_file_error.hpp"
#include "qkov/io/tensor_block.hpp"
#include "qkov/io/tensor_view.hpp"
#include "qkov/io/unmodelled_settings.hpp"
#include "qkov/model/head_weights.hpp"

namespace qkov::model {

struct norm_weights {
    io::norm_kind kind = io::norm_kind::rms_norm;
    vector weight, bias;  ///< bias empty for RMSNorm
    double eps = 1e-5;
};

struct layer_weights {
    std::size_t layer = 0;
    std::vector<head_weights> heads;  ///< one per query head
    norm_weights norm;                ///< the norm in front of the attention block
    vector b_o;                       ///< the output bias shared by all heads, or empty
};

class attention_model {
public:
    attention_model(io::model_config config, std::unique_ptr<io::tensor_source> source)
        : config_(std::move(config)), source_(std::move(source))
    {
        io::refuse_unknown_tensors(layout(), source_->names(), source_->location());
        check_geometry();
    }

    [[nodiscard]] const io::model_config& config() const { return config_; }
    [[nodiscard]] const io::family_layout& layout() const { return io::layout_of(config_.family); }
    [[nodiscard]] const io::tensor_source& source() const { return *source_; }

    [[nodiscard]] bool has_attention_biases() const
    {
        return find_layer_tensor(0, {"attn.c_attn.bias", "attention.query_key_value.bias", "self_attn.q_proj.bias", "self_attn.qkv_proj.bias"}) != nullptr;
    }
    [[nodiscard]] bool fused_qkv() const { return config_.family != io::model_family::llama || find_layer_tensor(0, {"self_attn.qkv_proj.weight"}) != nullptr; }

    /// The token embedding, V x D as stored (row t embeds token t); nullopt when the file lacks it.
    [[nodiscard]] std::optional<matrix> embedding() const { return embedding_rows(0, config_.vocab_size); }
    /// The unembedding, V x D (logits = W_U x): lm_head/embed_out/output, or the embedding when tied.
    [[nodiscard]] std::optional<matrix> unembedding() const { return unembedding_rows(0, config_.vocab_size); }
    /// Rows [first, first + count) of the embedding: for readers that stream the vocabulary instead
    /// of holding V x D doubles. Throws std::out_of_range past row V.
    [[nodiscard]] std::optional<matrix> embedding_rows(std::size_t first, std::size_t count) const
    {
        return vocabulary_rows(embedding_tensor(), first, count);
    }
    /// Rows [first, first + count) of the unembedding (the embedding's when tied).
    [[nodiscard]] std::optional<matrix> unembedding_rows(std::size_t first, std::size_t count) const
    {
        if (const auto* t = find_any(layout().unembedding)) return vocabulary_rows(t, first, count);
        if (config_.tied_embeddings) return embedding_rows(first, count);
        return std::nullopt;
    }
    /// The learned position embedding, positions x D as stored (GPT-2's wpe); nullopt for models
    /// whose positions come from RoPE (or files that lack it).
    [[nodiscard]] std::optional<matrix> position_embedding() const
    {
        const auto* t = layout().position_embedding ? find_global({layout().position_embedding}) : nullptr;
        if (t == nullptr) return std::nullopt;
        return load(*t, t->shape.empty() ? 0 : t->shape[0], config_.hidden_size);
    }
    /// Whether the file holds the embedding (present or absent) and the unembedding (present, tied to
    /// the embedding, or absent; the metrics that need an absent one cannot run).
    enum class presence { present, tied, absent, tied_to_absent, stored_as_unembedding };
    [[nodiscard]] presence embedding_presence() const
    {
        if (find_any(layout().embedding)) return presence::present;
        return embedding_tensor() != nullptr ? presence::stored_as_unembedding : presence::absent;
    }
    [[nodiscard]] presence unembedding_presence() const
    {
        if (find_any(layout().unembedding)) return presence::present;
        if (config_.tied_embeddings) return embedding_presence() == presence::present ? presence::tied : presence::tied_to_absent;
        return presence::absent;
    }
    /// Whether the embedding can be read (under its own name or, tied, the unembedding's).
    [[nodiscard]] bool has_embedding() const { return embedding_tensor() != nullptr; }
    /// The embedding's tensor: under its own name, or, for a tied model whose file holds the one
    /// matrix under the output's name alone (safetensors keeps one of two shared tensors, and
    /// TinyStories-656K's original file kept lm_head.weight), the unembedding's. nullptr: neither.
    [[nodiscard]] const io::tensor_view* embedding_tensor() const
    {
        if (const auto* e = find_any(layout().embedding)) return e;
        return config_.tied_embeddings ? find_any(layout().unembedding) : nullptr;
    }
    /// As `qkov inspect` and the JSON documents say it.
    static const char* presence_text(presence p)
    {
        switch (p) {
        case presence::present: return "present";
        case presence::tied: return "tied to the embedding";
        case presence::absent: return "absent";
        case presence::tied_to_absent: return "absent (tied to the absent embedding)";
        case presence::stored_as_unembedding: return "tied: stored as the unembedding";
        }
        return "absent";
    }
    [[nodiscard]] std::string embedding_status() const { return presence_text(embedding_presence()); }
    [[nodiscard]] std::string unembedding_status() const { return presence_text(unembedding_presence()); }

    [[nodiscard]] layer_weights layer(std::size_t l) const
    {
        if (l >= config_.layers) throw std::out_of_range("qkov: layer " + std::to_string(l) + " of a model with " + std::to_string(config_.layers));
        switch (config_.family) {
        case io::model_family::gpt2: return gpt2_layer(l);
        case io::model_family::gpt_neox: return neox_layer(l);
        case io::model_family::llama: return llama_layer(l);
        }
        return {};
    }

    /// D x Hd: layer l's output projection, every head's W_o side by side (head h in columns
    /// h d .. h d + d - 1), read alone: what a layer writes into the residual stream, for the scan's
    /// composition with later layers, which reads it again for each pair instead of holding it.
    [[nodiscard]] matrix layer_output(std::size_t l) const
    {
        if (l >= config_.layers) throw std::out_of_range("qkov: layer " + std::to_string(l) + " of a model with " + std::to_string(config_.layers));
        const std::size_t D = config_.hidden_size, Hd = config_.heads * config_.head_dim;
        if (layout().conv1d) return block(shaped(need(l, layout().attention_output), Hd, D), 0, Hd, 0, D, true);  // Conv1D [in = Hd, out = D]
        return block(shaped(need(l, layout().attention_output), D, Hd), 0, D, 0, Hd);
    }

    /// A model-wide tensor under the first of the names found (with or without the family's
    /// prefix), or nullptr: how the forward pass finds what the head model does not read.
    [[nodiscard]] const io::tensor_view* global_tensor(std::initializer_list<const char*> names) const { return find_global(names); }
    /// Layer l's tensor under the first of the suffixes found ("mlp.c_fc.weight"), or nullptr.
    [[nodiscard]] const io::tensor_view* layer_tensor(std::size_t l, std::initializer_list<const char*> suffixes) const
    {
        return find_layer_tensor(l, suffixes);
    }
    /// Layer l's name for a suffix, as messages print it ("h.0.mlp.c_fc.weight").
    [[nodiscard]] std::string layer_tensor_name(std::size_t l, const char* suffix) const { return layer_prefix(l) + suffix; }

    /// Loads a tensor as doubles with the expected shape; NaN/Inf is an error naming the index.
    [[nodiscard]] static matrix load(const io::tensor_view& t, std::size_t rows, std::size_t cols)
    {
        return block(shaped(t, rows, cols), 0, rows, 0, cols);
    }
    [[nodiscard]] static vector load(const io::tensor_view& t, std::size_t n)
    {
        return part(&shaped(t, n), 0, n);
    }
    /// Rows [row, row + rows) x columns [column, column + columns) of a tensor whose shape must be
    /// [total_rows, total_columns], as doubles, checked like load(): a part of a large matrix
    /// without the rest of it.
    [[nodiscard]] static matrix load_block(const io::tensor_view& t, std::size_t total_rows, std::size_t total_columns, std::size_t row, std::size_t rows,
                                           std::size_t column, std::size_t columns)
    {
        return block(shaped(t, total_rows, total_columns), row, rows, column, columns);
    }

private:
    static std::string shape_text(const std::vector<std::size_t>& s)
    {
        std::ostringstream out;
        out << "[";
        for (std::size_t i = 0; i < s.size(); ++i) out << (i ? ", " : "") << s[i];
        out << "]";
        return out.str();
    }
    /// t itself once its shape is [n].
    static const io::tensor_view& shaped(const io::tensor_view& t, std::size_t n)
    {
        if (t.shape.size() != 1 || t.shape[0] != n)
            throw io::model_file_error(t.file, t.name, "shape " + shape_text(t.shape) + ", expected [" + std::to_string(n) + "]");
        return t;
    }
    /// t itself once its shape is [rows, cols].
    static const io::tensor_view& shaped(const io::tensor_view& t, std::size_t rows, std::size_t cols)
    {
        if (t.shape.size() != 2 || t.shape[0] != rows || t.shape[1] != cols)
            throw io::model_file_error(t.file, t.name, "shape " + shape_text(t.shape) + ", expected [" + std::to_string(rows) + ", " + std::to_string(cols) + "]");
        return t;
    }
    /// Rows [row, row + rows) x columns [column, column + columns) of a stored matrix as doubles, or
    /// that block's transpose: converted and checked straight from the mapped bytes, no other copy.
    static matrix block(const io::tensor_view& t, std::size_t row, std::size_t rows, std::size_t column, std::size_t columns, bool transposed = false)
    {
        matrix m = xt::empty<double>(transposed ? std::array{columns, rows} : std::array{rows, columns});
        io::read_block(t, row, rows, column, columns, transposed ? io::block_destination{m.data(), 1, rows} : io::block_destination{m.data(), columns, 1});
        return m;
    }
    /// Rows [first, first + count) of a V x D vocabulary matrix, or nullopt when it is absent.
    [[nodiscard]] std::optional<matrix> vocabulary_rows(const io::tensor_view* t, std::size_t first, std::size_t count) const
    {
        if (t == nullptr) return std::nullopt;
        const std::size_t V = config_.vocab_size;
        if (first > V || count > V - first)
            throw std::out_of_range("qkov: rows " + std::to_string(first) + " to " + std::to_string(first + count) + " of " + t->name + ", which has " +
                                    std::to_string(V));
        return block(shaped(*t, V, config_.hidden_size), first, count, 0, config_.hidden_size);
    }
    /// Elements [first, first + d) of a stored vector, or empty when the tensor is absent.
    static vector part(const io::tensor_view* b, std::size_t first, std::size_t d)
    {
        if (b == nullptr) return {};
        vector v = xt::empty<double>({d});
        io::read_block(*b, 0, 1, first, d, {v.data(), d, 1});
        return v;
    }

    [[nodiscard]] const std::array<const char*, 2>& prefixes() const { return layout().prefixes; }
    [[nodiscard]] const io::tensor_view* find_global(std::initializer_list<const char*> names) const
    {
        for (const char* n : names)
            for (const char* p : prefixes())
                if (const auto* t = source_->find(std::string(p) + n)) return t;
        return nullptr;
    }
    /// The first of `names` the file holds (model-wide), or nullptr.
    template <std::size_t N>
    [[nodiscard]] const io::tensor_view* find_any(const std::array<const char*, N>& names) const
    {
        for (const char* n : names)
            if (const auto* t = find_global({n})) return t;
        return nullptr;
    }
    [[nodiscard]] std::string layer_prefix(std::size_t l) const { return layout().layer_stem + std::to_string(l) + "."; }
    [[nodiscard]] const io::tensor_view* find_layer_tensor(std::size_t l, std::initializer_list<const char*> suffixes) const
    {
        for (const char* s : suffixes)
            for (const char* p : prefixes())
                if (const auto* t = source_->find(p + layer_prefix(l) + s)) return t;
        return nullptr;
    }
    [[nodiscard]] const io::tensor_view& need(std::size_t l, const char* suffix) const
    {
        if (const auto* t = find_layer_tensor(l, {suffix})) return *t;
        throw io::model_file_error(source_->location(), prefixes().front() + layer_prefix(l) + suffix,
                                   "missing, and the " + config_.model_type + " architecture needs it");
    }
    [[nodiscard]] vector optional_vector(std::size_t l, const char* suffix, std::size_t n) const
    {
        const auto* t = find_layer_tensor(l, {suffix});
        return t ? load(*t, n) : vector{};
    }
    [[nodiscard]] norm_weights norm(std::size_t l, const char* weight, const char* bias) const
    {
        norm_weights n;
        n.kind = config_.norm;
        n.eps = config_.norm_eps;
        n.weight = load(need(l, weight), config_.hidden_size);
        if (bias) n.bias = optional_vector(l, bias, config_.hidden_size);
        return n;
    }
    [[nodiscard]] layer_weights empty_layer(std::size_t l) const
    {
        layer_weights lw;
        lw.layer = l;
        lw.heads.resize(config_.heads);
        const std::size_t group = config_.heads / config_.kv_heads;
        for (std::size_t h = 0; h < config_.heads; ++h) lw.heads[h].layer = l, lw.heads[h].head = h, lw.heads[h].kv_head = h / group;
        return lw;
    }
    /// A layer's optional vector tensor once its length is n, or nullptr when the file lacks it.
    [[nodiscard]] const io::tensor_view* optional_shaped(std::size_t l, const char* suffix, std::size_t n) const
    {
        const auto* t = find_layer_tensor(l, {suffix});
        return t != nullptr ? &shaped(*t, n) : nullptr;
    }

    /// The config's sizes against the tensors the file holds, before anything is sized by them: the
    /// width and the heads against the output projection of the first and the last layer, the layer
    /// count by that last layer's existence, the vocabulary against the embedding. A config claiming
    /// hidden_size 10^5 or 2^40 layers over a 30 KB file is refused here, not after gigabytes are
    /// allocated for it (D x D in the scan, L layers in the forward pass).
    void check_geometry() const
    {
        const std::size_t D = config_.hidden_size, L = config_.layers;
        const auto Hd = io::checked_product({config_.heads, config_.head_dim});
        if (!Hd) throw io::model_file_error(source_->location(), std::to_string(config_.heads) + " heads of width " + std::to_string(config_.head_dim) + " overflow 64 bits");
        const char* suffix = layout().attention_output;
        const bool conv1d = layout().conv1d;  // [in = Hd, out = D]; nn.Linear [out = D, in = Hd]
        const std::size_t rows = conv1d ? *Hd : D, cols = conv1d ? D : *Hd;
        // Every layer needs its output projection: the first one bounds the sizes, the last one the count.
        shaped(need(0, suffix), rows, cols);
        const auto* last = find_layer_tensor(L - 1, {suffix});
        if (last == nullptr)
            throw io::model_file_error(source_->location(), "the config states " + std::to_string(L) + " layers, but tensor '" + prefixes().front() +
                                                                layer_prefix(L - 1) + suffix + "' of the last of them is missing");
        shaped(*last, rows, cols);
        if (const auto* e = embedding_tensor(); e && e->shape.size() == 2)
            shaped(*e, config_.vocab_size, D);
    }

    [[nodiscard]] layer_weights gpt2_layer(std::size_t l) const
    {
        const std::size_t D = config_.hidden_size, d = config_.head_dim, H = config_.heads;
        const auto& qkv = shaped(need(l, "attn.c_attn.weight"), D, 3 * H * d);  // Conv1D [in, out], columns [q | k | v]
        const auto* bias = optional_shaped(l, "attn.c_attn.bias", 3 * H * d);
        const auto& proj = shaped(need(l, layout().attention_output), H * d, D);  // Conv1D [in = Hd, out = D]
        auto lw = empty_layer(l);
        for (auto& h : lw.heads) {
            // A head's nn.Linear slice is the transpose of its Conv1D block, read transposed in place.
            const std::size_t q = h.head * d, k = H * d + q, v = 2 * H * d + q;
            h.w_q = block(qkv, 0, D, q, d, true), h.b_q = part(bias, q, d);
            h.w_k = block(qkv, 0, D, k, d, true), h.b_k = part(bias, k, d);
            h.w_v = block(qkv, 0, D, v, d, true), h.b_v = part(bias, v, d);
            h.w_o = block(proj, q, d, 0, D, true);
        }
        lw.b_o = optional_vector(l, "attn.c_proj.bias", D);
        lw.norm = norm(l, layout().attention_norm, layout().attention_norm_bias);
        return lw;
    }

    [[nodiscard]] layer_weights neox_layer(std::size_t l) const
    {
        const std::size_t D = config_.hidden_size, d = config_.head_dim, H = config_.heads;
        const auto& qkv = shaped(need(l, "attention.query_key_value.weight"), 3 * H * d, D);
        const auto* bias = optional_shaped(l, "attention.query_key_value.bias", 3 * H * d);
        const auto& dense = shaped(need(l, layout().attention_output), D, H * d);
        auto lw = empty_layer(l);
        for (auto& h : lw.heads) {
            const std::size_t base = 3 * h.head * d;
            h.w_q = block(qkv, base, d, 0, D), h.b_q = part(bias, base, d);
            h.w_k = block(qkv, base + d, d, 0, D), h.b_k = part(bias, base + d, d);
            h.w_v = block(qkv, base + 2 * d, d, 0, D), h.b_v = part(bias, base + 2 * d, d);
            h.w_o = block(dense, 0, D, h.head * d, d);
        }
        lw.b_o = optional_vector(l, "attention.dense.bias", D);
        lw.norm = norm(l, layout().attention_norm, layout().attention_norm_bias);
        return lw;
    }

    [[nodiscard]] layer_weights llama_layer(std::size_t l) const
    {
        const std::size_t D = config_.hidden_size, d = config_.head_dim, H = config_.heads, K = config_.kv_heads;
        // Each projection: its weight, its bias (or nullptr) and the row where its first head starts.
        struct projection {
            const io::tensor_view* weight;
            const io::tensor_view* bias;
            std::size_t first;
        };
        projection q{}, k{}, v{};
        if (find_layer_tensor(l, {"self_attn.qkv_proj.weight"})) {
            const auto* qkv = &shaped(need(l, "self_attn.qkv_proj.weight"), (H + 2 * K) * d, D);
            const auto* b = optional_shaped(l, "self_attn.qkv_proj.bias", (H + 2 * K) * d);
            q = {qkv, b, 0}, k = {qkv, b, H * d}, v = {qkv, b, (H + K) * d};
        } else {
            q = {&shaped(need(l, "self_attn.q_proj.weight"), H * d, D), optional_shaped(l, "self_attn.q_proj.bias", H * d), 0};
            k = {&shaped(need(l, "self_attn.k_proj.weight"), K * d, D), optional_shaped(l, "self_attn.k_proj.bias", K * d), 0};
            v = {&shaped(need(l, "self_attn.v_proj.weight"), K * d, D), optional_shaped(l, "self_attn.v_proj.bias", K * d), 0};
        }
        const auto& o = shaped(need(l, layout().attention_output), D, H * d);
        auto lw = empty_layer(l);
        const std::size_t group = H / K;
        for (auto& h : lw.heads) {
            h.w_q = block(*q.weight, q.first + h.head * d, d, 0, D), h.b_q = part(q.bias, q.first + h.head * d, d);
            h.w_o = block(o, 0, D, h.head * d, d);
            if (h.head % group != 0) {  // GQA: the group's first head has already read the shared key/value head
                const auto& first = lw.heads[h.head - h.head % group];
                h.w_k = first.w_k, h.b_k = first.b_k, h.w_v = first.w_v, h.b_v = first.b_v;
                continue;
            }
            h.w_k = block(*k.weight, k.first + h.kv_head * d, d, 0, D), h.b_k = part(k.bias, k.first + h.kv_head * d, d);
            h.w_v = block(*v.weight, v.first + h.kv_head * d, d, 0, D), h.b_v = part(v.bias, v.first + h.kv_head * d, d);
        }
        lw.b_o = optional_vector(l, "self_attn.o_proj.bias", D);
        lw.norm = norm(l, layout().attention_norm, layout().attention_norm_bias);
        return lw;
    }

    io::model_config config_;
    std::unique_ptr<io::tensor_source> source_;
};

} // namespace qkov::model
