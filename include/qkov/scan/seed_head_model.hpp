// A model file holding the seeds' heads, built from their one definition in circuits/, so that the
// scan is checked on heads whose behaviour is known (claims R7, R12, T3 of kind S): the file goes
// through the same reader, norm and scan as a downloaded checkpoint.
//
// Llama layout (rotate-half RoPE, base 10000 as in seed 001, context 4096), D = 192, d = 64,
// two layers of two heads, 64 tokens:
//   L0H0  seed 001's previous-token head (previous_token_head, alpha = 1): W_k copies the
//         constant coordinate x_0 = 1 into every pair, W_q = R_{-1} W_k. OV: dimension_copy_head reading
//         coordinates 1 .. 64 into 128 .. 191.
//   L0H1  seed 000's semantic head with d0 = d - d/8 (semantic_head, first pair 28 of 32: the four
//         pairs that turn less than a quarter turn over 4096 positions). OV zero.
//   L1H0  QK zero. OV: dimension_copy_head reading 128 .. 159 (half of what L0H0 writes) and 64 .. 95.
//   L1H1  zero.
// Token embeddings: x_0 = 1 and, elsewhere, seeded Gaussian entries scaled so every row has the
// same norm (so RMSNorm keeps x_0's reading constant). Norm weights 1, tied unembedding, and a
// zero MLP, so the forward pass (qkov detect) runs the same heads the scan reads.
#pragma once

#include <array>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/circuits/dimension_copy_head.hpp"
#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/rope_seed_setting.hpp"
#include "qkov/io/safetensors_writer.hpp"
#include "qkov/scan/seed_head_model_geometry.hpp"

namespace qkov::scan {

/// Writes config.json and model.safetensors into `dir` (created if needed) and returns it.
inline std::filesystem::path write_seed_head_model(const std::filesystem::path& dir)
{
    using g = seed_head_model_geometry;
    constexpr std::size_t D = g::D, d = g::d, H = g::heads;
    constexpr rope_layout layout{d, d, rope_pairing::rotate_half};
    const auto angles = standard_angles<double, seed_rope_setting>();
    const auto previous = previous_token_head<layout, D>(angles, 1.0);
    const auto semantic = semantic_head<layout, D, double>(g::semantic_first_pair);
    std::array<std::size_t, d> from{}, to{}, from_1{}, to_1{};
    for (std::size_t k = 0; k < d; ++k) {
        from[k] = 1 + k, to[k] = 2 * d + k;
        from_1[k] = k < g::passed_dimensions ? 2 * d + k : d + k, to_1[k] = k;
    }
    const auto copy_0 = dimension_copy_head<double, D, d>(from, to), copy_1 = dimension_copy_head<double, D, d>(from_1, to_1);

    // Per layer: q/k/v_proj [H d, D] (head h's rows h d .. h d + d - 1) and o_proj [D, H d].
    std::vector<io::tensor_to_write> tensors;
    const auto zeros = [](std::size_t rows, std::size_t cols) { return std::vector<float>(rows * cols, 0.0f); };
    for (std::size_t l = 0; l < g::layers; ++l) {
        auto q = zeros(H * d, D), k = zeros(H * d, D), v = zeros(H * d, D), o = zeros(D, H * d);
        for (std::size_t i = 0; i < d; ++i)
            for (std::size_t j = 0; j < D; ++j) {
                if (l == 0) {
                    q[i * D + j] = static_cast<float>(previous.w_q(i, j));
                    k[i * D + j] = static_cast<float>(previous.w_k(i, j));
                    q[(d + i) * D + j] = static_cast<float>(semantic.w_q(i, j));
                    k[(d + i) * D + j] = static_cast<float>(semantic.w_k(i, j));
                }
                v[i * D + j] = static_cast<float>(l == 0 ? copy_0.w_v(i, j) : copy_1.w_v(i, j));
                o[j * H * d + i] = static_cast<float>(l == 0 ? copy_0.w_out(j, i) : copy_1.w_out(j, i));
            }
        const std::string prefix = "model.layers." + std::to_string(l) + ".";
        tensors.push_back({prefix + "self_attn.q_proj.weight", {H * d, D}, std::move(q)});
        tensors.push_back({prefix + "self_attn.k_proj.weight", {H * d, D}, std::move(k)});
        tensors.push_back({prefix + "self_attn.v_proj.weight", {H * d, D}, std::move(v)});
        tensors.push_back({prefix + "self_attn.o_proj.weight", {D, H * d}, std::move(o)});
        tensors.push_back({prefix + "input_layernorm.weight", {D}, std::vector<float>(D, 1.0f)});
        // What the forward pass needs beyond attention, made neutral (norm weights 1, an MLP that
        // adds nothing), so qkov detect can run the heads whose weights the scan reads.
        tensors.push_back({prefix + "post_attention_layernorm.weight", {D}, std::vector<float>(D, 1.0f)});
        tensors.push_back({prefix + "mlp.gate_proj.weight", {g::mlp_width, D}, zeros(g::mlp_width, D)});
        tensors.push_back({prefix + "mlp.up_proj.weight", {g::mlp_width, D}, zeros(g::mlp_width, D)});
        tensors.push_back({prefix + "mlp.down_proj.weight", {D, g::mlp_width}, zeros(D, g::mlp_width)});
    }
    tensors.push_back({"model.norm.weight", {D}, std::vector<float>(D, 1.0f)});
    std::mt19937_64 random(20261123);
    std::normal_distribution<double> gaussian;
    std::vector<float> embedding(g::vocabulary * D);
    for (std::size_t t = 0; t < g::vocabulary; ++t) {
        std::vector<double> row(D);
        double square = 0;
        for (std::size_t j = 1; j < D; ++j) {
            row[j] = gaussian(random);
            square += row[j] * row[j];
        }
        const double scale = 3.0 / std::sqrt(square);  // the rest has norm 3 in every row
        embedding[t * D] = 1.0f;
        for (std::size_t j = 1; j < D; ++j) embedding[t * D + j] = static_cast<float>(row[j] * scale);
    }
    tensors.push_back({"model.embed_tokens.weight", {g::vocabulary, D}, std::move(embedding)});

    std::filesystem::create_directories(dir);
    io::write_safetensors(dir / "model.safetensors", tensors);
    const nlohmann::json config = {{"model_type", "llama"},       {"architectures", {"LlamaForCausalLM"}}, {"hidden_size", D},
                                   {"num_hidden_layers", g::layers}, {"num_attention_heads", H},            {"num_key_value_heads", H},
                                   {"head_dim", d},                {"vocab_size", g::vocabulary},          {"max_position_embeddings", g::context},
                                   {"rms_norm_eps", 1e-5},         {"rope_theta", seed_rope_setting.base}, {"tie_word_embeddings", true},
                                   {"torch_dtype", "float32"},     {"bos_token_id", 0}};  // every token reads x_0 = 1 alike
    io::write_file_atomically(dir / "config.json", config.dump(1) + "\n");
    return dir;
}

} // namespace qkov::scan
