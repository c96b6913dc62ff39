// What qkov does not model, in one list: every architecture, config.json key, GGUF key and tensor
// that changes a model's attention scores or its residual stream in a way qkov's forward pass,
// mean field and certificates do not compute. A checkpoint that uses one is refused by name when
// it is opened (model/open_model.hpp), so `inspect`, `scan`, `detect` and the Python module refuse
// it alike: a scan of such a model would certify bounds on softmax(q R k / sqrt(d)) for a model
// whose attention is something else (docs/unmodelled.md).
//
// A setting at the value qkov computes with (its default, "absent", false, ...) is accepted: a
// GPT-2 config states scale_attn_weights true, and that is what qkov does. Tensors are checked the
// other way round, against the names each family's readers know (a closed list): a tensor qkov does
// not read could be a norm, a gate or a bias that enters the residual stream, so an unknown one is
// refused, with what it does where it is a known kind (q_norm, rope_freqs, ...).
//
// What qkov models with a condition is not here but in the readers: sliding-window attention
// (model_config.hpp: exact for sequences no longer than the window, refused by the forward pass
// and the scan beyond it), RoPE scaling types linear, llama3 and dynamic (forward/rope_schedule.hpp),
// GPT-NeoX's parallel residual, SmolLM3's NoPE layers.
#pragma once

#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/io/model_family.hpp"
#include "qkov/io/model_file_error.hpp"

namespace qkov::io {

/// A model_type qkov could read by its layout but whose computation differs, and why.
struct unmodelled_architecture {
    std::string_view model_type;
    std::string_view why;
};

inline constexpr std::array<unmodelled_architecture, 7> unmodelled_architectures{{
    {"gemma", "its embedding is multiplied by sqrt(hidden_size) and its norms scale by 1 + w"},
    {"gemma2", "its embedding is multiplied by sqrt(hidden_size), it soft-caps attention scores and logits, scales scores by query_pre_attn_scalar, "
               "normalises each block's output again (post-norms) and alternates sliding-window layers"},
    {"gemma3", "its embedding is multiplied by sqrt(hidden_size), it normalises queries and keys (QK-norm) and each block's output (post-norms)"},
    {"gemma3_text", "its embedding is multiplied by sqrt(hidden_size), it normalises queries and keys (QK-norm) and each block's output (post-norms)"},
    {"olmo2", "its norms follow the attention and the MLP instead of preceding them, and it normalises all queries and keys together (QK-norm)"},
    {"llama4", "its NoPE layers scale the queries with the position (attn_temperature_tuning), its RoPE layers normalise queries and keys, and it "
               "interleaves mixture-of-experts layers"},
    {"cohere2", "its layer_types alternate sliding-window RoPE layers with full-attention NoPE layers and it computes attention and MLP in parallel"},
}};

/// The values of a setting at which the model computes what qkov computes.
enum class modelled_when {
    absent,    ///< only when the key is absent or null
    is_false,  ///< false, or absent
    is_true,   ///< true, or absent
    is_zero,   ///< 0 or false, or absent
    is_one,    ///< 1, or absent
    head_dim,  ///< the head width, or absent (a score scale that equals 1 / sqrt(head_dim))
};

/// One config.json or GGUF key: its name (a GGUF key without its "{arch}." prefix), when the value
/// is modelled, and what any other value does to the model. `implemented_by` is a family whose
/// readers implement the setting (GPT-NeoX's parallel residual), where it is accepted as it is.
struct unmodelled_setting {
    std::string_view key;
    modelled_when modelled;
    std::string_view effect;
    std::optional<model_family> implemented_by = std::nullopt;
};

inline constexpr std::array<unmodelled_setting, 20> unmodelled_config_keys{{
    {"attn_logit_softcapping", modelled_when::absent, "soft-caps every attention score, s -> c tanh(s / c)"},
    {"final_logit_softcapping", modelled_when::absent, "soft-caps the logits, l -> c tanh(l / c)"},
    {"query_pre_attn_scalar", modelled_when::head_dim, "divides the attention scores by sqrt(query_pre_attn_scalar) instead of sqrt(head_dim)"},
    {"attention_multiplier", modelled_when::absent, "multiplies the attention scores by a constant instead of dividing them by sqrt(head_dim)"},
    {"embedding_multiplier", modelled_when::absent, "multiplies the token embedding"},
    {"residual_multiplier", modelled_when::absent, "multiplies each block's output before it joins the residual stream"},
    {"logits_scaling", modelled_when::absent, "divides the logits"},
    {"scale_emb", modelled_when::absent, "multiplies the token embedding"},
    {"scale_depth", modelled_when::absent, "scales each block's output before it joins the residual stream"},
    {"scale_attn_weights", modelled_when::is_true, "false leaves the attention scores undivided by sqrt(head_dim)"},
    {"scale_attn_by_inverse_layer_idx", modelled_when::is_false, "divides layer l's attention scores by l + 1"},
    {"add_cross_attention", modelled_when::is_false, "adds cross-attention blocks to the residual stream"},
    {"use_qk_norm", modelled_when::is_false, "normalises queries and keys before the scores (QK-norm)"},
    {"qk_layernorm", modelled_when::is_false, "normalises queries and keys before the scores (QK-norm)"},
    {"use_alibi", modelled_when::is_false, "adds ALiBi's linear position bias to the attention scores"},
    {"alibi", modelled_when::is_false, "adds ALiBi's linear position bias to the attention scores"},
    {"use_parallel_residual", modelled_when::is_false, "computes attention and MLP from the same input, x + attn(ln1(x)) + mlp(ln2(x))",
     model_family::gpt_neox},
    {"parallel_attn", modelled_when::is_false, "computes attention and MLP from the same input, x + attn(ln(x)) + mlp(ln(x))"},
    {"attn_temperature_tuning", modelled_when::is_zero, "scales a NoPE layer's queries with the position (Llama 4)"},
    {"interleave_moe_layer_step", modelled_when::is_zero, "interleaves mixture-of-experts layers"},
}};

inline constexpr std::array<unmodelled_setting, 10> unmodelled_gguf_keys{{
    {"attn_logit_softcapping", modelled_when::absent, "soft-caps every attention score, s -> c tanh(s / c)"},
    {"final_logit_softcapping", modelled_when::absent, "soft-caps the logits, l -> c tanh(l / c)"},
    {"attention.scale", modelled_when::absent, "multiplies the attention scores by a constant instead of dividing them by sqrt(head_dim)"},
    {"attention.clamp_kqv", modelled_when::absent, "clamps every query, key and value entry"},
    {"embedding_scale", modelled_when::absent, "multiplies the token embedding"},
    {"residual_scale", modelled_when::absent, "multiplies each block's output before it joins the residual stream"},
    {"logit_scale", modelled_when::absent, "multiplies the logits"},
    {"use_parallel_residual", modelled_when::is_false, "computes attention and MLP from the same input"},
    {"expert_count", modelled_when::is_zero, "replaces the MLP by a mixture of experts"},
    {"rope.scaling.attn_factor", modelled_when::is_one, "multiplies the RoPE rotation, and so every score, by a constant (YaRN's attention factor)"},
}};

/// Kinds of tensor qkov does not read, by a part of their name, with what they do: for the message
/// that refuses them (an unknown tensor is refused whether or not its kind is listed here).
struct unmodelled_tensor_kind {
    std::string_view name_part;
    std::string_view effect;
};

inline constexpr std::array<unmodelled_tensor_kind, 11> unmodelled_tensor_kinds{{
    {"q_norm", "normalises the queries before the scores (QK-norm)"},
    {"k_norm", "normalises the keys before the scores (QK-norm)"},
    {"q_layernorm", "normalises the queries before the scores (QK-norm)"},
    {"k_layernorm", "normalises the keys before the scores (QK-norm)"},
    {"rope_freqs", "divides each RoPE pair's angle by its own factor (llama.cpp's form of Llama 3.1's RoPE scaling)"},
    {"post_attention_norm", "normalises the attention block's output before it joins the residual stream"},
    {"post_feedforward_layernorm", "normalises the MLP's output before it joins the residual stream"},
    {"pre_feedforward_layernorm", "normalises the MLP's input (Gemma 2's extra norm)"},
    {"post_ffw_norm", "normalises the MLP's output before it joins the residual stream"},
    {"gate_inp", "routes tokens to experts (a mixture-of-experts MLP)"},
    {"experts", "a mixture-of-experts MLP"},
}};

/// Per-layer tensors each family's readers know besides those of family_layout (the attention
/// projections, which each family's slicing names) and the buffers some checkpoints carry that
/// change nothing (a causal mask, RoPE's inverse frequencies recomputed from the config).
struct family_tensor_names {
    model_family family;
    std::array<std::string_view, 10> layer;   ///< suffixes after "<stem><l>." ("" = unused slot)
    std::array<std::string_view, 3> buffers;  ///< per-layer suffixes that hold no weight
};

inline constexpr std::array<family_tensor_names, 3> family_attention_tensors{{
    {model_family::gpt2, {"attn.c_attn.weight", "attn.c_attn.bias", "attn.c_proj.bias"}, {"attn.bias", "attn.masked_bias"}},
    {model_family::gpt_neox,
     {"attention.query_key_value.weight", "attention.query_key_value.bias", "attention.dense.bias"},
     {"attention.bias", "attention.masked_bias", "attention.rotary_emb.inv_freq"}},
    {model_family::llama,
     {"self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight", "self_attn.q_proj.bias", "self_attn.k_proj.bias",
      "self_attn.v_proj.bias", "self_attn.qkv_proj.weight", "self_attn.qkv_proj.bias", "self_attn.o_proj.bias",
      "mlp.gate_up_proj.weight"},  // a fused gate_up MLP: known, and refused by name by the forward pass
     {"self_attn.rotary_emb.inv_freq"}},
}};

namespace detail {

inline bool is_null_or_absent(const nlohmann::json* v) { return v == nullptr || v->is_null(); }

/// Whether the value a file states is one at which qkov computes what the model computes.
inline bool value_is_modelled(const nlohmann::json& v, modelled_when when, std::size_t head_dim)
{
    if (v.is_null()) return true;
    switch (when) {
    case modelled_when::absent: return false;
    case modelled_when::is_false: return v.is_boolean() && !v.get<bool>();
    case modelled_when::is_true: return v.is_boolean() && v.get<bool>();
    case modelled_when::is_zero: return (v.is_boolean() && !v.get<bool>()) || (v.is_number() && v.get<double>() == 0);
    case modelled_when::is_one: return v.is_number() && v.get<double>() == 1;
    case modelled_when::head_dim: return v.is_number() && v.get<double>() == static_cast<double>(head_dim);
    }
    return false;
}

inline std::string setting_refusal(std::string_view key, const nlohmann::json& v, std::string_view effect)
{
    return "\"" + std::string(key) + "\" is " + v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + ": it " + std::string(effect) +
           ", which qkov does not model (docs/unmodelled.md)";
}

/// The effect of a tensor whose name holds one of unmodelled_tensor_kinds' parts, or a general one.
inline std::string tensor_effect(std::string_view name)
{
    for (const auto& k : unmodelled_tensor_kinds)
        if (name.find(k.name_part) != std::string_view::npos) return std::string(k.effect);
    return "it is not a tensor qkov's readers know for this family, and it may change the attention scores or the residual stream";
}

} // namespace detail

/// Refuses a model_type of unmodelled_architectures by name.
inline void refuse_unmodelled_architecture(std::string_view model_type, const std::string& file)
{
    for (const auto& a : unmodelled_architectures)
        if (a.model_type == model_type)
            throw model_file_error(file, "model_type \"" + std::string(model_type) + "\" is not modelled: " + std::string(a.why) + " (docs/unmodelled.md)");
}

/// Refuses a config.json (an object) that states one of unmodelled_config_keys at another value
/// than the one qkov computes with.
inline void refuse_unmodelled_config(const nlohmann::json& config, model_family family, std::size_t head_dim, const std::string& file)
{
    for (const auto& s : unmodelled_config_keys) {
        if (s.implemented_by && *s.implemented_by == family) continue;
        const auto it = config.find(std::string(s.key));
        if (it == config.end() || detail::value_is_modelled(*it, s.modelled, head_dim)) continue;
        throw model_file_error(file, detail::setting_refusal(s.key, *it, s.effect));
    }
}

/// The same for GGUF metadata, whose keys carry the architecture as their prefix.
inline void refuse_unmodelled_gguf(const nlohmann::json& metadata, const std::string& arch, std::size_t head_dim, const std::string& file)
{
    for (const auto& s : unmodelled_gguf_keys) {
        const std::string key = arch + "." + std::string(s.key);
        const auto it = metadata.find(key);
        if (it == metadata.end() || detail::value_is_modelled(*it, s.modelled, head_dim)) continue;
        throw model_file_error(file, detail::setting_refusal(key, *it, s.effect));
    }
}

/// Whether `name` is a tensor the readers of `family` know (model-wide or of a layer), with or
/// without the family's prefix.
inline bool known_tensor(const family_layout& layout, std::string_view name)
{
    for (const char* prefix : layout.prefixes)
        if (name.starts_with(prefix)) {
            const std::string_view rest = name.substr(std::string_view(prefix).size());
            if (!std::string_view(prefix).empty() && known_tensor(layout, rest)) return true;
        }
    const auto is = [&](const char* candidate) { return candidate != nullptr && name == candidate; };
    for (const char* n : layout.embedding)
        if (is(n)) return true;
    for (const char* n : layout.unembedding)
        if (is(n)) return true;
    // A norm's bias is read only where the family's norm is a LayerNorm: an RMSNorm with a bias
    // would be read without it.
    const bool norm_biases = layout.attention_norm_bias != nullptr;
    const auto bias_of = [](std::string_view weight) { return std::string(weight.substr(0, weight.rfind('.'))) + ".bias"; };
    if (is(layout.position_embedding) || is(layout.final_norm) || (norm_biases && name == bias_of(layout.final_norm))) return true;
    if (!name.starts_with(layout.layer_stem)) return false;
    std::string_view rest = name.substr(std::string_view(layout.layer_stem).size());
    const auto dot = rest.find('.');
    if (dot == 0 || dot == std::string_view::npos || rest.substr(0, dot).find_first_not_of("0123456789") != std::string_view::npos) return false;
    const std::string_view suffix = rest.substr(dot + 1);
    const auto stem_is = [&](const char* stem) {
        return stem != nullptr && (suffix == std::string(stem) + ".weight" || suffix == std::string(stem) + ".bias");
    };
    const auto norm_is = [&](const char* weight) { return weight != nullptr && (suffix == weight || (norm_biases && suffix == bias_of(weight))); };
    if (norm_is(layout.attention_norm) || norm_is(layout.mlp_norm) || suffix == layout.attention_output) return true;
    if (stem_is(layout.mlp_in) || stem_is(layout.mlp_out) || stem_is(layout.mlp_gate)) return true;
    for (const auto& f : family_attention_tensors)
        if (f.family == layout.family) {
            for (const auto& n : f.layer)
                if (!n.empty() && suffix == n) return true;
            for (const auto& n : f.buffers)
                if (!n.empty() && suffix == n) return true;
        }
    return false;
}

/// Refuses a checkpoint holding a tensor its family's readers do not know, naming it.
inline void refuse_unknown_tensors(const family_layout& layout, const std::vector<std::string>& names, const std::string& file)
{
    for (const auto& name : names)
        if (!known_tensor(layout, name))
            throw model_file_error(file, name, "not modelled for the " + std::string(layout.name) + " layout: " + detail::tensor_effect(name) +
                                                   " (docs/unmodelled.md)");
}

} // namespace qkov::io
