// Tiny models in the GPT-2, GPT-NeoX and Llama (grouped-query) layouts, in float32 or bf16, with
// planted heads whose kind is known by construction, for testing what `qkov scan` finds with the seeds' searches.
//
// Geometry: D = 64, V = 128, 3 layers, head width d = 16. Norm weights are 1 and norm biases 0.
// Every layer but the first holds only random heads (Gaussian, std 1 / sqrt(D)).
//
// The embedding is built from the 64 x 64 Sylvester-Hadamard matrix (rows h_0 = ones, h_1 = u,
// h_2 .. h_63, entries +-1, mutually orthogonal): token t embeds as 2 u + three of h_2 .. h_63 with
// random signs. Every row has mean 0 (LayerNorm's centering leaves it alone), the same norm and the
// same component along u, so any norm layer maps every token to the same reading u^T x. The
// common part is u / 4 by default: then W_E^T W_U is about as large along u (V D / 16) as along
// each other direction (3 V D / 62), and no direction dominates the token circuit. Its entries
// are multiples of 1/4 of magnitude < 4: exact in bf16, like every planted
// factor below (+-1/8 times a bf16 value), so the planted structure (rank 1, rows that vanish,
// the projection) survives the rounding of either dtype exactly.
//
// Planted heads, column convention (q = W_q x + b_q, W_q d x D):
//   uniform         (GPT-2)  W_q = q0 u^T / 8, W_k = k0 u^T / 8, q0, k0 random: both read the one
//                            constant direction u, so every key scores the same (seed 000).
//   previous_token  (RoPE)   W_q = q0 u^T / 8, W_k = k0 u^T / 8 with, for every rotary pair l,
//                            k0's pair (1, 0) and q0's pair R(-theta_l) (1, 0): the score at offset
//                            delta is proportional to sum_l cos((delta - 1) theta_l) (seed 001).
//   semantic        (RoPE)   W_q, W_k random in the rows of the slow pairs (theta_l N < pi / 2,
//                            N = 4096), zero elsewhere: the score ignores position (claim R12).
//   copy            (all)    W_v = P^T, W_o = P with P = [h_2 .. h_17] / 8 (orthonormal columns in
//                            the embedding's span): W_o W_v projects onto span(P), and the token
//                            circuit's eigenvalues are those of P^T W_E^T W_U P, positive (K2).
// GPT-NeoX and GPT-2 carry attention biases: random for random heads, zero for the semantic and
// copy heads, and b_q = q0 / 2, b_k = k0 / 2 for the one-direction heads (q stays a multiple of q0).
//
// Under GQA (Llama: 8 query heads, 4 key/value heads) each planted key/value head is shared with a
// second query head, which shows that a label follows from the whole circuit:
//   kv 0: head 0 previous_token; head 1 a random query on that key: no label.
//   kv 1: head 2 semantic; head 3 a random query on the slow-pair key: semantic (its score still
//         reads only the slow pairs).
//   kv 2: head 4 copy; head 5 a random output on the copy value: no label.
//   kv 3: heads 6, 7 random.
#pragma once

#include <bit>
#include <cmath>
#include <filesystem>
#include <map>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "tiny_checkpoint.hpp"

namespace qkov::test {

enum class planted_layout { gpt2, gpt_neox, llama_gqa };

inline std::string layout_name(planted_layout l)
{
    return l == planted_layout::gpt2 ? "gpt2" : l == planted_layout::gpt_neox ? "gpt_neox" : "llama_gqa";
}

/// One head of a planted model and the seeds' searches (head_labels.hpp) that must find it.
struct planted_head {
    std::size_t layer = 0, head = 0;
    std::string kind;                 ///< uniform, previous_token, semantic, copy, random, or a GQA partner's description
    std::vector<std::string> searches;  ///< expected, in the order the scan lists them
};

struct planted_model {
    std::filesystem::path dir;
    planted_layout layout = planted_layout::gpt2;
    stored_dtype dtype = stored_dtype::f32;
    std::size_t heads = 0, kv_heads = 0, rotary_dim = 0;
    double base = 0;                      ///< RoPE base (0 without RoPE)
    std::vector<std::size_t> slow_pairs;  ///< theta_l * 4096 < pi / 2
    std::vector<planted_head> planted;    ///< every head of the model
};

namespace planted_detail {

constexpr std::size_t D = 64, V = 128, layers = 3, d = 16, context = 4096;

/// Entry (i, j) of the Sylvester-Hadamard matrix: (-1)^popcount(i & j).
inline float hadamard(std::size_t i, std::size_t j) { return std::popcount(i & j) % 2 ? -1.0f : 1.0f; }

/// A d x D (or D x d) row-major block.
using block = std::vector<float>;

struct query_head {
    block q, o;  ///< W_q (d x D), W_o (D x d)
    std::vector<float> b_q;
};
struct key_value_head {
    block k, v;  ///< W_k, W_v (d x D)
    std::vector<float> b_k, b_v;
};
struct layer {
    std::vector<query_head> queries;
    std::vector<key_value_head> key_values;
};

class builder {
public:
    builder(std::uint64_t seed, std::size_t rotary_dim, double base) : rng_(seed), rotary_dim_(rotary_dim), base_(base) {}

    block gaussian(std::size_t n, double std = 1.0 / std::sqrt(static_cast<double>(D)))
    {
        std::normal_distribution<double> g(0.0, std);
        block b(n);
        for (auto& x : b) x = static_cast<float>(g(rng_));
        return b;
    }
    std::vector<float> bias() { return gaussian(d, 0.02); }
    /// v u^T / 8 (d x D): reads only the direction u.
    static block reads_u(const std::vector<float>& v)
    {
        block b(d * D);
        for (std::size_t r = 0; r < d; ++r)
            for (std::size_t j = 0; j < D; ++j) b[r * D + j] = v[r] * hadamard(1, j) / 8;
        return b;
    }
    static std::vector<float> scaled(std::vector<float> v, float s)
    {
        for (auto& x : v) x *= s;
        return v;
    }
    [[nodiscard]] double theta(std::size_t l) const { return std::pow(base_, -2.0 * static_cast<double>(l) / static_cast<double>(rotary_dim_)); }
    [[nodiscard]] std::vector<std::size_t> slow_pairs() const
    {
        std::vector<std::size_t> s;
        for (std::size_t l = 0; l < rotary_dim_ / 2; ++l)
            if (theta(l) * static_cast<double>(context) < std::numbers::pi / 2) s.push_back(l);
        return s;
    }
    /// Seed 001's vectors: k0's pair l is (1, 0), q0's is R(-theta_l) (1, 0); rotate_half pairs (l, l + r/2).
    [[nodiscard]] std::pair<std::vector<float>, std::vector<float>> previous_token_vectors() const
    {
        std::vector<float> q0(d, 0.0f), k0(d, 0.0f);
        for (std::size_t l = 0; l < rotary_dim_ / 2; ++l) {
            q0[l] = static_cast<float>(std::cos(theta(l))), q0[l + rotary_dim_ / 2] = static_cast<float>(-std::sin(theta(l)));
            k0[l] = 1.0f;
        }
        return {q0, k0};
    }
    /// Random in the rows of the slow pairs, zero elsewhere (d x D).
    block slow_rows()
    {
        block b(d * D, 0.0f);
        for (const auto l : slow_pairs())
            for (const auto row : {l, l + rotary_dim_ / 2}) {
                const auto r = gaussian(D);
                std::copy(r.begin(), r.end(), b.begin() + static_cast<std::ptrdiff_t>(row * D));
            }
        return b;
    }
    /// P^T (d x D) with P = [h_2 .. h_{d+1}] / 8, and P itself (D x d).
    static block projection_rows()
    {
        block b(d * D);
        for (std::size_t r = 0; r < d; ++r)
            for (std::size_t j = 0; j < D; ++j) b[r * D + j] = hadamard(2 + r, j) / 8;
        return b;
    }
    static block projection_columns()
    {
        block b(D * d);
        for (std::size_t j = 0; j < D; ++j)
            for (std::size_t r = 0; r < d; ++r) b[j * d + r] = hadamard(2 + r, j) / 8;
        return b;
    }
    query_head random_query(bool biased) { return {gaussian(d * D), gaussian(D * d), biased ? bias() : std::vector<float>(d, 0.0f)}; }
    key_value_head random_key_value(bool biased)
    {
        return {gaussian(d * D), gaussian(d * D), biased ? bias() : std::vector<float>(d, 0.0f), biased ? bias() : std::vector<float>(d, 0.0f)};
    }
    /// V x D: `common` u plus three distinct rows of h_2 .. h_63 with random signs, per token.
    block embedding(float common)
    {
        block e(V * D);
        std::uniform_int_distribution<std::size_t> row(2, D - 1);
        std::bernoulli_distribution sign(0.5);
        for (std::size_t t = 0; t < V; ++t) {
            std::size_t picked[3];
            float signs[3];
            for (std::size_t i = 0; i < 3; ++i) {
                do picked[i] = row(rng_);
                while ((i > 0 && picked[i] == picked[0]) || (i > 1 && picked[i] == picked[1]));
                signs[i] = sign(rng_) ? 1.0f : -1.0f;
            }
            for (std::size_t j = 0; j < D; ++j) {
                float x = common * hadamard(1, j);
                for (std::size_t i = 0; i < 3; ++i) x += signs[i] * hadamard(picked[i], j);
                e[t * D + j] = x;
            }
        }
        return e;
    }

private:
    std::mt19937_64 rng_;
    std::size_t rotary_dim_;
    double base_;
};

inline float_tensor tensor(std::vector<std::size_t> shape, block values) { return {std::move(shape), std::move(values)}; }

} // namespace planted_detail

/// Writes the planted model of `layout` stored as `dtype` and returns it with its expected searches.
/// Without embeddings the file holds neither W_E nor W_U (no reading to call constant).
/// `common` is the coefficient of u in every token's embedding (a power of two keeps it exact).
inline planted_model write_planted_model(planted_layout layout, stored_dtype dtype, bool with_embeddings = true, float common = 0.25f)
{
    using namespace planted_detail;
    planted_model m;
    m.layout = layout, m.dtype = dtype;
    m.heads = layout == planted_layout::llama_gqa ? 8 : 4;
    m.kv_heads = 4;
    m.rotary_dim = layout == planted_layout::gpt2 ? 0 : layout == planted_layout::gpt_neox ? 14 : 16;  // NeoX: rotary_pct 0.875 of d
    m.base = layout == planted_layout::gpt2 ? 0 : layout == planted_layout::gpt_neox ? 1e5 : 5e5;
    const bool biased = layout != planted_layout::llama_gqa;
    builder b(1000 + static_cast<std::uint64_t>(layout), m.rotary_dim, m.base);
    m.slow_pairs = m.rotary_dim ? b.slow_pairs() : std::vector<std::size_t>{};

    std::vector<layer> layers_(layers);
    for (std::size_t l = 0; l < layers; ++l) {
        for (std::size_t h = 0; h < m.heads; ++h) layers_[l].queries.push_back(b.random_query(biased));
        for (std::size_t k = 0; k < m.kv_heads; ++k) layers_[l].key_values.push_back(b.random_key_value(biased));
        for (std::size_t h = 0; h < m.heads; ++h) m.planted.push_back({l, h, "random", {}});
    }
    auto& first = layers_[0];
    const auto expect = [&](std::size_t h, std::string kind, std::vector<std::string> searches) { m.planted[h] = {0, h, std::move(kind), std::move(searches)}; };
    const auto one_direction = [&](std::size_t qh, std::size_t kv, const std::vector<float>& q0, const std::vector<float>& k0) {
        first.queries[qh].q = builder::reads_u(q0);
        first.key_values[kv].k = builder::reads_u(k0);
        first.queries[qh].b_q = biased ? builder::scaled(q0, 0.5f) : std::vector<float>(d, 0.0f);
        first.key_values[kv].b_k = biased ? builder::scaled(k0, 0.5f) : std::vector<float>(d, 0.0f);
    };
    const auto semantic = [&](std::size_t qh, std::size_t kv) {
        first.queries[qh].q = b.slow_rows(), first.key_values[kv].k = b.slow_rows();
        first.queries[qh].b_q.assign(d, 0.0f), first.key_values[kv].b_k.assign(d, 0.0f);
    };
    const auto copy = [&](std::size_t qh, std::size_t kv) {
        first.queries[qh].o = builder::projection_columns(), first.key_values[kv].v = builder::projection_rows();
        first.key_values[kv].b_v.assign(d, 0.0f);
    };
    switch (layout) {
    case planted_layout::gpt2:
        one_direction(0, 0, b.gaussian(d, 1.0), b.gaussian(d, 1.0));
        expect(0, "uniform", {"rank_one_reading"});
        copy(1, 1);
        expect(1, "copy", {});
        break;
    case planted_layout::gpt_neox: {
        const auto [q0, k0] = b.previous_token_vectors();
        one_direction(0, 0, q0, k0);
        expect(0, "previous_token", {"rank_one_reading"});
        semantic(1, 1);
        expect(1, "semantic", {"bottom_heavy"});
        copy(2, 2);
        expect(2, "copy", {});
        break;
    }
    case planted_layout::llama_gqa: {
        const auto [q0, k0] = b.previous_token_vectors();
        one_direction(0, 0, q0, k0);
        expect(0, "previous_token", {"rank_one_reading"});
        expect(1, "random query on the previous-token key", {});
        semantic(2, 1);
        expect(2, "semantic", {"bottom_heavy"});
        expect(3, "random query on the slow-pair key", {"bottom_heavy"});
        copy(4, 2);
        expect(4, "copy", {});
        expect(5, "random output on the copy value", {});
        break;
    }
    }

    std::map<std::string, float_tensor> t;
    const std::size_t H = m.heads, K = m.kv_heads;
    const auto ones = [](std::size_t n, float x) { return block(n, x); };
    for (std::size_t l = 0; l < layers; ++l) {
        const auto& ly = layers_[l];
        const std::string L = std::to_string(l);
        switch (layout) {
        case planted_layout::gpt2: {
            // Conv1D [in, out]: column h d + r of c_attn is row r of head h's W_q (W_k at D + .., W_v at 2D + ..).
            block qkv(D * 3 * D), bias(3 * D), proj(D * D);
            for (std::size_t h = 0; h < H; ++h)
                for (std::size_t r = 0; r < d; ++r) {
                    const std::size_t c = h * d + r;
                    for (std::size_t j = 0; j < D; ++j) {
                        qkv[j * 3 * D + c] = ly.queries[h].q[r * D + j];
                        qkv[j * 3 * D + D + c] = ly.key_values[h].k[r * D + j];
                        qkv[j * 3 * D + 2 * D + c] = ly.key_values[h].v[r * D + j];
                        proj[c * D + j] = ly.queries[h].o[j * d + r];
                    }
                    bias[c] = ly.queries[h].b_q[r], bias[D + c] = ly.key_values[h].b_k[r], bias[2 * D + c] = ly.key_values[h].b_v[r];
                }
            const std::string p = "transformer.h." + L + ".";
            t[p + "attn.c_attn.weight"] = tensor({D, 3 * D}, qkv);
            t[p + "attn.c_attn.bias"] = tensor({3 * D}, bias);
            t[p + "attn.c_proj.weight"] = tensor({D, D}, proj);
            t[p + "attn.c_proj.bias"] = tensor({D}, ones(D, 0));
            t[p + "ln_1.weight"] = tensor({D}, ones(D, 1)), t[p + "ln_1.bias"] = tensor({D}, ones(D, 0));
            break;
        }
        case planted_layout::gpt_neox: {
            // nn.Linear [out, in], rows [head][q, k, v][d]; dense [D, H d], columns by head.
            block qkv(3 * H * d * D), bias(3 * H * d), dense(D * H * d);
            for (std::size_t h = 0; h < H; ++h)
                for (std::size_t r = 0; r < d; ++r) {
                    const std::size_t row = 3 * h * d + r;
                    for (std::size_t j = 0; j < D; ++j) {
                        qkv[row * D + j] = ly.queries[h].q[r * D + j];
                        qkv[(row + d) * D + j] = ly.key_values[h].k[r * D + j];
                        qkv[(row + 2 * d) * D + j] = ly.key_values[h].v[r * D + j];
                        dense[j * H * d + h * d + r] = ly.queries[h].o[j * d + r];
                    }
                    bias[row] = ly.queries[h].b_q[r], bias[row + d] = ly.key_values[h].b_k[r], bias[row + 2 * d] = ly.key_values[h].b_v[r];
                }
            const std::string p = "gpt_neox.layers." + L + ".";
            t[p + "attention.query_key_value.weight"] = tensor({3 * H * d, D}, qkv);
            t[p + "attention.query_key_value.bias"] = tensor({3 * H * d}, bias);
            t[p + "attention.dense.weight"] = tensor({D, H * d}, dense);
            t[p + "attention.dense.bias"] = tensor({D}, ones(D, 0));
            t[p + "input_layernorm.weight"] = tensor({D}, ones(D, 1)), t[p + "input_layernorm.bias"] = tensor({D}, ones(D, 0));
            break;
        }
        case planted_layout::llama_gqa: {
            block q(H * d * D), k(K * d * D), v(K * d * D), o(D * H * d);
            for (std::size_t h = 0; h < H; ++h)
                for (std::size_t r = 0; r < d; ++r)
                    for (std::size_t j = 0; j < D; ++j) q[(h * d + r) * D + j] = ly.queries[h].q[r * D + j], o[j * H * d + h * d + r] = ly.queries[h].o[j * d + r];
            for (std::size_t g = 0; g < K; ++g)
                for (std::size_t r = 0; r < d; ++r)
                    for (std::size_t j = 0; j < D; ++j) k[(g * d + r) * D + j] = ly.key_values[g].k[r * D + j], v[(g * d + r) * D + j] = ly.key_values[g].v[r * D + j];
            const std::string p = "model.layers." + L + ".";
            t[p + "self_attn.q_proj.weight"] = tensor({H * d, D}, q);
            t[p + "self_attn.k_proj.weight"] = tensor({K * d, D}, k);
            t[p + "self_attn.v_proj.weight"] = tensor({K * d, D}, v);
            t[p + "self_attn.o_proj.weight"] = tensor({D, H * d}, o);
            t[p + "input_layernorm.weight"] = tensor({D}, ones(D, 1));
            break;
        }
        }
    }

    nlohmann::json config;
    switch (layout) {
    case planted_layout::gpt2:
        config = {{"model_type", "gpt2"}, {"architectures", {"GPT2LMHeadModel"}}, {"n_embd", D}, {"n_head", H}, {"n_layer", layers},
                  {"n_positions", 64}, {"vocab_size", V}, {"layer_norm_epsilon", 1e-5}, {"tie_word_embeddings", true}};
        if (with_embeddings) t["transformer.wte.weight"] = tensor({V, D}, b.embedding(common)), t["transformer.wpe.weight"] = tensor({64, D}, b.gaussian(64 * D, 0.02));
        break;
    case planted_layout::gpt_neox:
        config = {{"model_type", "gpt_neox"}, {"architectures", {"GPTNeoXForCausalLM"}}, {"hidden_size", D}, {"num_attention_heads", H},
                  {"num_hidden_layers", layers}, {"vocab_size", V}, {"rotary_pct", 0.875}, {"rotary_emb_base", m.base}, {"layer_norm_eps", 1e-5},
                  {"max_position_embeddings", context}, {"tie_word_embeddings", false}, {"use_parallel_residual", true}};
        if (with_embeddings) {
            auto e = b.embedding(common);
            t["embed_out.weight"] = tensor({V, D}, builder::scaled(e, 0.5f));  // untied: a separate W_U, here W_E / 2
            t["gpt_neox.embed_in.weight"] = tensor({V, D}, std::move(e));
        }
        break;
    case planted_layout::llama_gqa:
        config = {{"model_type", "llama"}, {"architectures", {"LlamaForCausalLM"}}, {"hidden_size", D}, {"num_attention_heads", H},
                  {"num_key_value_heads", K}, {"head_dim", d}, {"num_hidden_layers", layers}, {"vocab_size", V}, {"rope_theta", m.base},
                  {"rms_norm_eps", 1e-5}, {"max_position_embeddings", context}, {"tie_word_embeddings", true}};
        if (with_embeddings) t["model.embed_tokens.weight"] = tensor({V, D}, b.embedding(common));
        break;
    }
    config["torch_dtype"] = config_name(dtype);
    m.dir = write_checkpoint("planted-" + layout_name(layout) + "-" + config_name(dtype) + (with_embeddings ? "" : "-no-embedding") +
                             (common == 0.25f ? "" : "-common-" + std::to_string(common)), config, t, dtype);
    return m;
}

} // namespace qkov::test
