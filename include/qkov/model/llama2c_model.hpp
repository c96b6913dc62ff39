// A llama2.c checkpoint as a head model: its configuration from the header (run.c's fixed
// choices: RMSNorm with eps 1e-5, SwiGLU, RoPE base 10000 over the whole head, interleaved pairs
// (2i, 2i + 1), as run.c rotates them) and its tensors under Hugging Face Llama names
// (io/llama2c_checkpoint.hpp).
#pragma once

#include <filesystem>
#include <memory>

#include "qkov/io/llama2c_checkpoint.hpp"
#include "qkov/io/llama2c_tokenizer.hpp"
#include "qkov/io/model_config.hpp"
#include "qkov/model/attention_model.hpp"

namespace qkov::model {

inline io::model_config llama2c_config(const io::llama2c_header& h)
{
    io::model_config c;
    c.architecture = "llama2.c";
    c.model_type = "llama";
    c.family = io::model_family::llama;
    c.hidden_size = h.dim, c.layers = h.layers, c.heads = h.heads, c.kv_heads = h.kv_heads, c.head_dim = h.head_dim();
    c.vocab_size = h.vocab_size;
    c.max_positions = h.seq_len;
    // llama2.c's run.c starts every sequence with its tokenizer's BOS, token 1.
    if (h.vocab_size > io::llama2c_tokenizer::bos) c.bos_token_id = io::llama2c_tokenizer::bos;
    c.tied_embeddings = h.shared_classifier;
    c.norm = io::norm_kind::rms_norm;
    c.norm_eps = 1e-5;
    c.dtype = "float32";
    c.activation = "silu";
    c.rope = io::rope_config{rope_pairing::interleaved, h.head_dim(), 10000.0, std::nullopt};
    return c;
}

inline attention_model open_llama2c_model(const std::filesystem::path& path)
{
    auto file = std::make_unique<io::llama2c_file>(path);
    auto config = llama2c_config(file->header());
    return attention_model(std::move(config), std::move(file));
}

} // namespace qkov::model
