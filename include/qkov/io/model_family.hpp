// Everything qkov knows of one family of checkpoints, in one table: which config.json model_types
// it reads as that family, the defaults its configs leave out, and the names of its tensors. The
// config reader (model_config.hpp), the head model (model/attention_model.hpp) and the forward pass
// (forward/decoder_weights.hpp) read names and defaults from here, so a new architecture of a known
// layout is one row of `architectures`, and a new layout one row of `family_layouts` and its
// slicing in attention_model (fixtures/models/README.md has the layouts).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace qkov::io {

enum class model_family { gpt2, gpt_neox, llama };

enum class norm_kind { layer_norm, rms_norm };

/// Tensor names of one family. A name with alternatives lists them in order (the first found is
/// used); the model-wide names are looked up under each of `prefixes`, the per-layer ones under
/// prefix + layer_stem + L + ".".
struct family_layout {
    model_family family;
    const char* name;                       ///< as the JSON documents spell it
    std::array<const char*, 2> prefixes;    ///< e.g. "transformer." then ""
    const char* layer_stem;                 ///< "h." or "layers."
    norm_kind norm;                         ///< unless the architecture says otherwise
    const char* activation;                 ///< when the config names none
    bool tied_by_default;                   ///< tie_word_embeddings when the config is silent
    bool learned_positions;                 ///< a position table (wpe) instead of RoPE
    // Model-wide tensors ("|" never appears: each list is the alternatives, in order).
    std::array<const char*, 4> embedding;
    std::array<const char*, 3> unembedding;
    const char* position_embedding;         ///< nullptr: none
    const char* final_norm;                 ///< its bias, where it has one, ends in "bias" instead of "weight"
    // Per-layer tensors.
    const char* attention_norm;             ///< in front of the attention block
    const char* attention_norm_bias;        ///< nullptr: an RMSNorm without one
    const char* attention_output;           ///< the output projection every layer needs (geometry checks read it)
    const char* mlp_norm;                   ///< in front of the MLP
    const char* mlp_in;                     ///< the activated projection's stem ("mlp.c_fc"); Llama: up_proj
    const char* mlp_out;                    ///< the projection back to D
    const char* mlp_gate;                   ///< SwiGLU's gate; nullptr: none
    bool conv1d;                            ///< weights stored [in, out] (GPT-2's Conv1D), else nn.Linear [out, in]
};

inline constexpr std::array<family_layout, 3> family_layouts{{
    {model_family::gpt2, "gpt2", {"transformer.", ""}, "h.", norm_kind::layer_norm, "gelu_new", true, true,
     {"wte.weight", "embed_in.weight", "embed_tokens.weight", "token_embd.weight"}, {"lm_head.weight", "embed_out.weight", "output.weight"},
     "wpe.weight", "ln_f.weight", "ln_1.weight", "ln_1.bias", "attn.c_proj.weight", "ln_2.weight", "mlp.c_fc", "mlp.c_proj", nullptr, true},
    {model_family::gpt_neox, "gpt_neox", {"gpt_neox.", ""}, "layers.", norm_kind::layer_norm, "gelu", false, false,
     {"embed_in.weight", "wte.weight", "embed_tokens.weight", "token_embd.weight"}, {"embed_out.weight", "lm_head.weight", "output.weight"},
     nullptr, "final_layer_norm.weight", "input_layernorm.weight", "input_layernorm.bias", "attention.dense.weight", "post_attention_layernorm.weight",
     "mlp.dense_h_to_4h", "mlp.dense_4h_to_h", nullptr, false},
    {model_family::llama, "llama", {"model.", ""}, "layers.", norm_kind::rms_norm, "silu", true, false,
     {"embed_tokens.weight", "wte.weight", "embed_in.weight", "token_embd.weight"}, {"lm_head.weight", "embed_out.weight", "output.weight"},
     nullptr, "norm.weight", "input_layernorm.weight", nullptr, "self_attn.o_proj.weight", "post_attention_layernorm.weight", "mlp.up_proj",
     "mlp.down_proj", "mlp.gate_proj", false},
}};

inline const family_layout& layout_of(model_family f)
{
    for (const auto& l : family_layouts)
        if (l.family == f) return l;
    return family_layouts.back();  // unreachable: every family has its row
}

/// The family's name as the JSON documents spell it ("gpt2", "gpt_neox", "llama").
inline const char* model_family_name(model_family f) { return layout_of(f).name; }

/// A config.json model_type qkov reads, the family whose layout its checkpoints have, and its norm.
struct architecture {
    std::string_view model_type;
    model_family family;
    norm_kind norm;
};

inline constexpr std::array<architecture, 8> architectures{{
    {"gpt2", model_family::gpt2, norm_kind::layer_norm},
    {"gpt_neox", model_family::gpt_neox, norm_kind::layer_norm},
    {"llama", model_family::llama, norm_kind::rms_norm},
    {"mistral", model_family::llama, norm_kind::rms_norm},
    {"qwen2", model_family::llama, norm_kind::rms_norm},
    {"qwen3", model_family::llama, norm_kind::rms_norm},
    {"phi3", model_family::llama, norm_kind::rms_norm},
    {"smollm3", model_family::llama, norm_kind::rms_norm},
}};

/// The row of `model_type`, or nullptr when qkov does not read it.
inline const architecture* find_architecture(std::string_view model_type)
{
    for (const auto& a : architectures)
        if (a.model_type == model_type) return &a;
    return nullptr;
}

/// "gpt2, gpt_neox, llama, ...": the model_types qkov reads, for messages.
inline std::string known_model_types()
{
    std::string list;
    for (const auto& a : architectures) list += (list.empty() ? "" : ", ") + std::string(a.model_type);
    return list;
}

} // namespace qkov::io
