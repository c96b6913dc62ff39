// The attention heads of a checkpoint, read lazily one layer at a time from its tensors.
//
// layer(l) reads only layer l's attention tensors, checks their shapes against the config and
// every value for NaN/Inf (naming the tensor and the index), and slices every query head into
// head_weights in the column convention (head_weights.hpp). Nothing else of the model is copied.
// Tensor layouts per family (fixtures/models/README.md has the tables):
//   gpt2      h.L.attn.c_attn (Conv1D [D, 3D], columns [q | k | v]), c_proj [D, D] rows by head
//   gpt_neox  layers.L.attention.query_key_value [3Hd, D], rows [head][q, k, v][d]; dense [D, Hd]
//   llama     layers.L.self_attn.{q,k,v,o}_proj (nn.Linear [out, in]), or a fused qkv_proj [(H+2Hkv)d, D]
// Names are looked up with and without the family's prefix ("transformer.", "gpt_neox.", "model.").
// Biases, fused projections and QK-norm are detected from the tensor names, never from the config.
#pragma once

#include <cmath>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <xtensor/xview.hpp>

#include "qkov/io/model_config.hpp"
#include "qkov/io/model_file_error.hpp"
#include "qkov/io/tensor_view.hpp"
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
    }

    [[nodiscard]] const io::model_config& config() const { return config_; }
    [[nodiscard]] const io::tensor_source& source() const { return *source_; }

    /// True when the layers carry q_norm/k_norm tensors: the score is then not one bilinear form
    /// of the residual, and the per-head QK matrices alone do not describe it.
    [[nodiscard]] bool has_qk_norm() const { return find_layer_tensor(0, {"self_attn.q_norm.weight"}) != nullptr; }
    [[nodiscard]] bool has_attention_biases() const
    {
        return find_layer_tensor(0, {"attn.c_attn.bias", "attention.query_key_value.bias", "self_attn.q_proj.bias", "self_attn.qkv_proj.bias"}) != nullptr;
    }
    [[nodiscard]] bool fused_qkv() const { return config_.family != io::model_family::llama || find_layer_tensor(0, {"self_attn.qkv_proj.weight"}) != nullptr; }

    /// The token embedding, V x D as stored (row t embeds token t); nullopt when the file lacks it.
    [[nodiscard]] std::optional<matrix> embedding() const
    {
        const auto* t = find_global({"wte.weight", "embed_in.weight", "embed_tokens.weight", "token_embd.weight"});
        if (t == nullptr) return std::nullopt;
        return load(*t, config_.vocab_size, config_.hidden_size);
    }
    /// The unembedding, V x D (logits = W_U x): lm_head/embed_out/output, or the embedding when tied.
    [[nodiscard]] std::optional<matrix> unembedding() const
    {
        const auto* t = find_global({"lm_head.weight", "embed_out.weight", "output.weight"});
        if (t != nullptr) return load(*t, config_.vocab_size, config_.hidden_size);
        if (config_.tied_embeddings) return embedding();
        return std::nullopt;
    }
    /// "present", "tied to the embedding", or "absent" (then the metrics that need it cannot run).
    [[nodiscard]] std::string embedding_status() const
    {
        return find_global({"wte.weight", "embed_in.weight", "embed_tokens.weight", "token_embd.weight"}) ? "present" : "absent";
    }
    [[nodiscard]] std::string unembedding_status() const
    {
        if (find_global({"lm_head.weight", "embed_out.weight", "output.weight"})) return "present";
        if (config_.tied_embeddings) return embedding_status() == "present" ? "tied to the embedding" : "absent (tied to the absent embedding)";
        return "absent";
    }

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

    /// Loads a tensor as doubles with the expected shape; NaN/Inf is an error naming the index.
    [[nodiscard]] static matrix load(const io::tensor_view& t, std::size_t rows, std::size_t cols)
    {
        if (t.shape.size() != 2 || t.shape[0] != rows || t.shape[1] != cols)
            throw io::model_file_error(t.file, t.name, "shape " + shape_text(t.shape) + ", expected [" + std::to_string(rows) + ", " + std::to_string(cols) + "]");
        matrix m = xt::empty<double>({rows, cols});
        for (std::size_t i = 0; i < rows * cols; ++i) m.data()[i] = checked(t, i);
        return m;
    }
    [[nodiscard]] static vector load(const io::tensor_view& t, std::size_t n)
    {
        if (t.shape.size() != 1 || t.shape[0] != n)
            throw io::model_file_error(t.file, t.name, "shape " + shape_text(t.shape) + ", expected [" + std::to_string(n) + "]");
        vector v = xt::empty<double>({n});
        for (std::size_t i = 0; i < n; ++i) v(i) = checked(t, i);
        return v;
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
    static double checked(const io::tensor_view& t, std::size_t i)
    {
        const double v = t.at(i);
        if (!std::isfinite(v)) {
            std::string where = std::to_string(i);
            if (t.shape.size() == 2) where = "[" + std::to_string(i / t.shape[1]) + ", " + std::to_string(i % t.shape[1]) + "]";
            throw io::model_file_error(t.file, t.name, (std::isnan(v) ? "NaN" : "infinite value") + std::string(" at index ") + where);
        }
        return v;
    }

    [[nodiscard]] std::vector<std::string> prefixes() const
    {
        switch (config_.family) {
        case io::model_family::gpt2: return {"transformer.", ""};
        case io::model_family::gpt_neox: return {"gpt_neox.", ""};
        case io::model_family::llama: return {"model.", ""};
        }
        return {""};
    }
    [[nodiscard]] const io::tensor_view* find_global(std::initializer_list<const char*> names) const
    {
        for (const char* n : names)
            for (const auto& p : prefixes())
                if (const auto* t = source_->find(p + n)) return t;
        return nullptr;
    }
    [[nodiscard]] std::string layer_prefix(std::size_t l) const
    {
        return config_.family == io::model_family::gpt2 ? "h." + std::to_string(l) + "." : "layers." + std::to_string(l) + ".";
    }
    [[nodiscard]] const io::tensor_view* find_layer_tensor(std::size_t l, std::initializer_list<const char*> suffixes) const
    {
        for (const char* s : suffixes)
            for (const auto& p : prefixes())
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
    /// rows [first, first + d) of m as a d x D matrix, and of b (when present) as a vector.
    static matrix rows(const matrix& m, std::size_t first, std::size_t d) { return xt::view(m, xt::range(first, first + d), xt::all()); }
    static vector part(const vector& b, std::size_t first, std::size_t d)
    {
        if (b.size() == 0) return {};
        return xt::view(b, xt::range(first, first + d));
    }
    static matrix columns(const matrix& m, std::size_t first, std::size_t d) { return xt::view(m, xt::all(), xt::range(first, first + d)); }

    [[nodiscard]] layer_weights gpt2_layer(std::size_t l) const
    {
        const std::size_t D = config_.hidden_size, d = config_.head_dim, H = config_.heads;
        // Conv1D stores [in, out]: transposing gives the nn.Linear [out, in] the column convention slices.
        const matrix qkv = xt::transpose(load(need(l, "attn.c_attn.weight"), D, 3 * H * d));
        const vector bias = optional_vector(l, "attn.c_attn.bias", 3 * H * d);
        const matrix proj = xt::transpose(load(need(l, "attn.c_proj.weight"), H * d, D));  // D x Hd
        auto lw = empty_layer(l);
        for (auto& h : lw.heads) {
            h.w_q = rows(qkv, h.head * d, d), h.b_q = part(bias, h.head * d, d);
            h.w_k = rows(qkv, H * d + h.head * d, d), h.b_k = part(bias, H * d + h.head * d, d);
            h.w_v = rows(qkv, 2 * H * d + h.head * d, d), h.b_v = part(bias, 2 * H * d + h.head * d, d);
            h.w_o = columns(proj, h.head * d, d);
        }
        lw.b_o = optional_vector(l, "attn.c_proj.bias", D);
        lw.norm = norm(l, "ln_1.weight", "ln_1.bias");
        return lw;
    }

    [[nodiscard]] layer_weights neox_layer(std::size_t l) const
    {
        const std::size_t D = config_.hidden_size, d = config_.head_dim, H = config_.heads;
        const matrix qkv = load(need(l, "attention.query_key_value.weight"), 3 * H * d, D);
        const vector bias = optional_vector(l, "attention.query_key_value.bias", 3 * H * d);
        const matrix dense = load(need(l, "attention.dense.weight"), D, H * d);
        auto lw = empty_layer(l);
        for (auto& h : lw.heads) {
            const std::size_t base = 3 * h.head * d;
            h.w_q = rows(qkv, base, d), h.b_q = part(bias, base, d);
            h.w_k = rows(qkv, base + d, d), h.b_k = part(bias, base + d, d);
            h.w_v = rows(qkv, base + 2 * d, d), h.b_v = part(bias, base + 2 * d, d);
            h.w_o = columns(dense, h.head * d, d);
        }
        lw.b_o = optional_vector(l, "attention.dense.bias", D);
        lw.norm = norm(l, "input_layernorm.weight", "input_layernorm.bias");
        return lw;
    }

    [[nodiscard]] layer_weights llama_layer(std::size_t l) const
    {
        const std::size_t D = config_.hidden_size, d = config_.head_dim, H = config_.heads, K = config_.kv_heads;
        matrix q, k, v;
        vector bq, bk, bv;
        if (find_layer_tensor(l, {"self_attn.qkv_proj.weight"})) {
            const matrix qkv = load(need(l, "self_attn.qkv_proj.weight"), (H + 2 * K) * d, D);
            q = rows(qkv, 0, H * d), k = rows(qkv, H * d, K * d), v = rows(qkv, (H + K) * d, K * d);
            const vector b = optional_vector(l, "self_attn.qkv_proj.bias", (H + 2 * K) * d);
            bq = part(b, 0, H * d), bk = part(b, H * d, K * d), bv = part(b, (H + K) * d, K * d);
        } else {
            q = load(need(l, "self_attn.q_proj.weight"), H * d, D);
            k = load(need(l, "self_attn.k_proj.weight"), K * d, D);
            v = load(need(l, "self_attn.v_proj.weight"), K * d, D);
            bq = optional_vector(l, "self_attn.q_proj.bias", H * d);
            bk = optional_vector(l, "self_attn.k_proj.bias", K * d);
            bv = optional_vector(l, "self_attn.v_proj.bias", K * d);
        }
        const matrix o = load(need(l, "self_attn.o_proj.weight"), D, H * d);
        auto lw = empty_layer(l);
        for (auto& h : lw.heads) {
            h.w_q = rows(q, h.head * d, d), h.b_q = part(bq, h.head * d, d);
            h.w_k = rows(k, h.kv_head * d, d), h.b_k = part(bk, h.kv_head * d, d);
            h.w_v = rows(v, h.kv_head * d, d), h.b_v = part(bv, h.kv_head * d, d);
            h.w_o = columns(o, h.head * d, d);
        }
        lw.b_o = optional_vector(l, "self_attn.o_proj.bias", D);
        lw.norm = norm(l, "input_layernorm.weight", nullptr);
        return lw;
    }

    io::model_config config_;
    std::unique_ptr<io::tensor_source> source_;
};

} // namespace qkov::model
