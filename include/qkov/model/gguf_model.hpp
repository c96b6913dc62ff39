// A GGUF file as a head model: the configuration from its metadata and its tensors under the
// Hugging Face Llama names the head model reads (blk.N.attn_q -> model.layers.N.self_attn.q_proj,
// token_embd -> model.embed_tokens, output -> lm_head, ...), and the MLP names the forward pass
// reads (ffn_norm, ffn_gate, ffn_up, ffn_down -> post_attention_layernorm, mlp.{gate,up,down}_proj).
//
// Pairing: llama.cpp's converter permutes the Q/K rows of llama-architecture models into the
// interleaved RoPE order (pairs (2i, 2i+1)), so those heads are reported with interleaved pairing;
// qwen2/qwen3 files keep the Hugging Face rotate_half order. Other GGUF architectures are refused
// by name rather than read with a guessed layout, and so is every tensor the mapping does not know
// (rope_freqs, post-norms, experts: io/unmodelled_settings.hpp) and every metadata key whose value
// qkov does not compute with (soft-capping, attention scales, YaRN); linear RoPE scaling is read.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "qkov/io/gguf.hpp"
#include "qkov/io/model_config.hpp"
#include "qkov/model/attention_model.hpp"

namespace qkov::model {

/// The GGUF tensors under Hugging Face Llama names.
class gguf_as_llama : public io::tensor_source {
public:
    explicit gguf_as_llama(std::unique_ptr<io::gguf_file> file) : file_(std::move(file))
    {
        static const std::map<std::string, std::string> layer_names = {
            {"attn_q.weight", "self_attn.q_proj.weight"},   {"attn_k.weight", "self_attn.k_proj.weight"}, {"attn_v.weight", "self_attn.v_proj.weight"},
            {"attn_output.weight", "self_attn.o_proj.weight"}, {"attn_q.bias", "self_attn.q_proj.bias"},   {"attn_k.bias", "self_attn.k_proj.bias"},
            {"attn_v.bias", "self_attn.v_proj.bias"},       {"attn_norm.weight", "input_layernorm.weight"}, {"attn_q_norm.weight", "self_attn.q_norm.weight"},
            {"attn_k_norm.weight", "self_attn.k_norm.weight"}, {"ffn_norm.weight", "post_attention_layernorm.weight"},
            {"ffn_gate.weight", "mlp.gate_proj.weight"},     {"ffn_up.weight", "mlp.up_proj.weight"},       {"ffn_down.weight", "mlp.down_proj.weight"}};
        for (const auto& name : file_->names()) {
            std::string hf;
            if (name == "token_embd.weight") hf = "model.embed_tokens.weight";
            else if (name == "output.weight") hf = "lm_head.weight";
            else if (name == "output_norm.weight") hf = "model.norm.weight";
            else if (name.starts_with("blk.")) {
                const auto dot = name.find('.', 4);
                const auto it = dot == std::string::npos ? layer_names.end() : layer_names.find(name.substr(dot + 1));
                if (it != layer_names.end()) hf = "model.layers." + name.substr(4, dot - 4) + "." + it->second;
            }
            // An unmapped tensor may change the scores or the residual stream: refused, never dropped.
            if (hf.empty())
                throw io::model_file_error(file_->location(), name, "not modelled for the GGUF llama layout: " + io::detail::tensor_effect(name) +
                                                                        " (docs/unmodelled.md)");
            names_.emplace(hf, name);
        }
    }
    [[nodiscard]] const io::tensor_view* find(const std::string& name) const override
    {
        const auto it = names_.find(name);
        return it == names_.end() ? nullptr : file_->find(it->second);
    }
    /// The Hugging Face names find() answers (GGUF tensors the head model does not use are left out).
    [[nodiscard]] std::vector<std::string> names() const override
    {
        std::vector<std::string> out;
        for (const auto& [hf, gguf] : names_) out.push_back(hf);
        return out;
    }
    [[nodiscard]] std::string format() const override { return file_->format(); }
    [[nodiscard]] std::string location() const override { return file_->location(); }
    [[nodiscard]] const io::gguf_file& file() const { return *file_; }

private:
    std::unique_ptr<io::gguf_file> file_;
    std::map<std::string, std::string> names_;
};

inline io::model_config gguf_config(const io::gguf_file& f)
{
    const auto& meta = f.metadata();
    const std::string& file = f.location();
    const auto text = [&](const std::string& key) -> std::string {
        const auto it = meta.find(key);
        if (it == meta.end() || !it->second.is_string()) throw io::model_file_error(file, "metadata lacks the string '" + key + "'");
        return it->second.get<std::string>();
    };
    const std::string arch = text("general.architecture");
    if (arch != "llama" && arch != "qwen2" && arch != "qwen3")
        throw io::model_file_error(file, "GGUF architecture '" + arch + "' is not read (qkov reads llama, qwen2 and qwen3 GGUF files)");
    // Every number goes through the checks config.json's numbers go through (model_config.hpp).
    const auto size = [&](const std::string& key, bool required, std::size_t fallback) -> std::size_t {
        const auto it = meta.find(arch + "." + key);
        if (it == meta.end()) {
            if (required) throw io::model_file_error(file, "metadata lacks '" + arch + "." + key + "'");
            return fallback;
        }
        return io::detail::positive_size(it->second, arch + "." + key, file);
    };
    const auto number = [&](const std::string& key, double fallback) -> double {
        const auto it = meta.find(arch + "." + key);
        return it == meta.end() ? fallback : io::detail::positive_number(it->second, arch + "." + key, file);
    };
    io::model_config c;
    c.architecture = arch;
    c.model_type = arch;
    c.family = io::model_family::llama;
    c.hidden_size = size("embedding_length", true, 0);
    c.layers = size("block_count", true, 0);
    c.heads = size("attention.head_count", true, 0);
    c.kv_heads = size("attention.head_count_kv", false, c.heads);
    if (c.hidden_size % c.heads != 0 && meta.find(arch + ".attention.key_length") == meta.end())
        throw io::model_file_error(file, std::to_string(c.heads) + " heads do not divide the width " + std::to_string(c.hidden_size));
    c.head_dim = size("attention.key_length", false, c.hidden_size / c.heads);
    if (c.heads % c.kv_heads != 0) throw io::model_file_error(file, "key/value heads do not divide the query heads");
    const auto* embd = f.find("token_embd.weight");
    c.vocab_size = embd && embd->shape.size() == 2 ? embd->shape[0] : size("vocab_size", true, 0);
    c.tied_embeddings = f.find("output.weight") == nullptr;
    c.max_positions = size("context_length", false, 0);
    if (const auto it = meta.find("tokenizer.ggml.bos_token_id"); it != meta.end()) {
        if (!it->second.is_number_integer() || it->second.get<std::int64_t>() < 0 || it->second.get<std::uint64_t>() >= c.vocab_size)
            throw io::model_file_error(file, "tokenizer.ggml.bos_token_id " + io::detail::json_text(it->second) + " is not a token of the vocabulary of " + std::to_string(c.vocab_size));
        c.bos_token_id = it->second.get<std::size_t>();
    }
    io::rope_config r;
    r.pairing = arch == "llama" ? rope_pairing::interleaved : rope_pairing::rotate_half;
    r.rotary_dim = size("rope.dimension_count", false, c.head_dim);
    r.base = number("rope.freq_base", r.base);
    if (const auto it = meta.find(arch + ".rope.scaling.type"); it != meta.end() && !(it->second.is_string() && it->second.get<std::string>() == "none")) {
        if (!(it->second.is_string() && it->second.get<std::string>() == "linear"))
            throw io::model_file_error(file, arch + ".rope.scaling.type is " + io::detail::json_text(it->second) +
                                                 ": qkov applies linear RoPE scaling from GGUF metadata, no other (docs/unmodelled.md)");
        r.scaling = io::rope_scaling{"linear", number("rope.scaling.factor", 1.0)};
    }
    io::detail::check_rope(r, c.head_dim, file);
    io::refuse_unmodelled_gguf(meta, arch, c.head_dim, file);
    if (meta.find(arch + ".attention.sliding_window") != meta.end()) c.attention_windows.assign(c.layers, size("attention.sliding_window", true, 0));
    c.rope = r;
    c.activation = "silu";  // the SwiGLU gate of every architecture read here
    c.norm_eps = number("attention.layer_norm_rms_epsilon", c.norm_eps);
    return c;
}

inline attention_model open_gguf_model(const std::filesystem::path& path)
{
    auto file = std::make_unique<io::gguf_file>(path);
    auto config = gguf_config(*file);
    return attention_model(std::move(config), std::make_unique<gguf_as_llama>(std::move(file)));
}

} // namespace qkov::model
