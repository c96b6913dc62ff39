// config.json of a Hugging Face checkpoint, reduced to what the head model needs.
//
// Both spellings are accepted: transformers 5 keeps RoPE settings in "rope_parameters" and the
// dtype in "dtype"; older files keep "rope_theta"/"rope_scaling" at top level (NeoX:
// "rotary_emb_base", "rotary_pct") and "torch_dtype". Families (from "model_type"):
//   gpt2                                    Conv1D [in, out], fused c_attn, learned positions
//   gpt_neox                                fused query_key_value interleaved per head, partial RoPE
//   llama, mistral, qwen2, qwen3,           separate q/k/v/o_proj, GQA, rotate_half RoPE
//   phi3 (fused qkv_proj), smollm3
// What changes the scores or the residual stream in a way qkov does not compute is refused by name
// (unmodelled_settings.hpp: architectures such as Gemma, keys such as attn_logit_softcapping).
// RoPE is a property of each layer: SmolLM3 leaves some layers unrotated (NoPE), marked in
// "no_rope_layers" (one 0/1 per layer, 1 = RoPE) or, when that is absent, every
// "no_rope_layer_interval"-th layer (transformers' SmolLM3Config: no_rope_layers[l] =
// int((l + 1) % interval != 0), interval 4 by default). RoPE settings keyed by layer type
// ("rope_parameters": {"full_attention": {...}, "sliding_attention": {...}}) are read when every
// layer uses one setting, and refused when layers would differ.
// Sliding-window attention is a property of each layer too (attention_windows): a layer whose
// window is W lets a query see only the W latest keys. qkov computes full causal attention, which
// is that exactly for sequences of at most W positions; require_full_attention refuses longer ones
// (the forward pass and the scan call it), so a window never changes a result silently. A layer
// is windowed when "layer_types" says "sliding_attention", or, without layer_types, every layer
// when "use_sliding_window" is true, or when the key is absent and the model type applies a
// stated "sliding_window" by default (Mistral, Phi-3; not Qwen2/Qwen3/SmolLM3, whose default is
// false).
// Sizes must be positive integers; the query heads must divide the width when head_dim is absent,
// and the kv heads must divide the query heads. Anything else is a model_file_error naming the key.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/circuits/rope_layout.hpp"
#include "qkov/io/model_family.hpp"
#include "qkov/io/model_file_error.hpp"
#include "qkov/io/unmodelled_settings.hpp"

namespace qkov::io {


/// The RoPE scalings qkov applies: linear, llama3, and dynamic (NTK scaling that changes the angles
/// only for sequences past the context the model declares, which the forward pass refuses, so the
/// angles are the unscaled ones). Other types (yarn, longrope, ...) are refused when read.
inline constexpr std::array<std::string_view, 3> modelled_rope_scalings{"linear", "llama3", "dynamic"};

struct rope_scaling {
    std::string type;     ///< one of modelled_rope_scalings
    double factor = 1.0;  ///< 1 when the type has none
    /// llama3 only: the wavelength band between which the angles are blended (Meta's defaults).
    double low_freq_factor = 1.0, high_freq_factor = 4.0;
    double original_max_position_embeddings = 8192.0;
};

struct rope_config {
    rope_pairing pairing = rope_pairing::rotate_half;
    std::size_t rotary_dim = 0;
    double base = 10000.0;
    std::optional<rope_scaling> scaling;
};

struct model_config {
    std::string architecture;  ///< the class name ("LlamaForCausalLM") or the GGUF architecture
    std::string model_type;
    model_family family = model_family::llama;
    std::size_t hidden_size = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, vocab_size = 0;
    std::size_t max_positions = 0;  ///< the context the model was built for; 0 when the file does not say
    std::optional<std::size_t> bos_token_id;  ///< the token a sequence starts with, when the file names one
    bool tied_embeddings = false;
    std::optional<rope_config> rope;  ///< none for learned absolute positions (GPT-2)
    std::vector<bool> rope_layers;   ///< empty: every layer uses `rope` (when set); else one flag per layer, false = no RoPE (NoPE)
    std::vector<std::size_t> attention_windows;  ///< empty: full attention everywhere; else per layer the sliding window (0: full)
    norm_kind norm = norm_kind::rms_norm;
    double norm_eps = 1e-5;
    std::string dtype;  ///< as the config states it (may be empty)
    /// The MLP's activation as the config names it ("gelu_new", "gelu", "silu", ...); what the
    /// forward pass reads, the head model does not need it.
    std::string activation;
    bool parallel_residual = false;  ///< x + attn(ln1(x)) + mlp(ln2(x)) (GPT-NeoX's use_parallel_residual)

    /// The RoPE of layer l: `rope` when that layer rotates, nullopt for a NoPE layer or a model without RoPE.
    [[nodiscard]] std::optional<rope_config> rope_at(std::size_t layer) const
    {
        if (!rope_layers.empty()) {
            if (layer >= rope_layers.size())
                throw std::out_of_range("qkov: layer " + std::to_string(layer) + " of a RoPE schedule of " + std::to_string(rope_layers.size()) + " layers");
            if (!rope_layers[layer]) return std::nullopt;
        }
        return rope;
    }

    /// Layer l's sliding window (the latest keys a query sees), or 0 for full causal attention.
    [[nodiscard]] std::size_t window_at(std::size_t layer) const { return layer < attention_windows.size() ? attention_windows[layer] : 0; }

    /// Refuses a sequence of `positions` that layer l's sliding window would cut: qkov computes full
    /// causal attention, which equals the windowed one only while every key is within the window.
    void require_full_attention(std::size_t layer, std::size_t positions, const std::string& what) const
    {
        const std::size_t w = window_at(layer);
        if (w != 0 && positions > w)
            throw std::invalid_argument("qkov: " + what + " has " + std::to_string(positions) + " positions, but layer " + std::to_string(layer) +
                                        " attends only to the latest " + std::to_string(w) +
                                        " (a sliding window); qkov computes full causal attention, which is the model's only up to that length");
    }

    [[nodiscard]] bool any_nope_layer() const
    {
        for (const bool rotates : rope_layers)
            if (!rotates) return true;
        return false;
    }
};

namespace detail {

inline const nlohmann::json* config_key(const nlohmann::json& j, std::initializer_list<const char*> keys, const char** found = nullptr)
{
    for (const char* k : keys) {
        const auto it = j.find(k);
        if (it != j.end() && !it->is_null()) {
            if (found) *found = k;
            return &*it;
        }
    }
    return nullptr;
}

/// A value as a message quotes it. A GGUF string is any bytes, and dump() throws on invalid
/// UTF-8 (a type_error, not the model_file_error the message was for): bad bytes are replaced.
inline std::string json_text(const nlohmann::json& v) { return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

/// A size a model file states (a config.json key, a GGUF metadata value): a positive integer up to
/// 2^40. One check for every format, so that a GGUF file is held to what config.json is.
inline std::size_t positive_size(const nlohmann::json& v, const std::string& key, const std::string& file)
{
    if (!v.is_number_integer()) throw model_file_error(file, "\"" + key + "\" is not an integer (" + json_text(v) + ")");
    if (v.is_number_unsigned() ? v.get<std::uint64_t>() > (std::uint64_t{1} << 40) : v.get<std::int64_t>() > (std::int64_t{1} << 40))
        throw model_file_error(file, "\"" + key + "\" is absurdly large (" + json_text(v) + ")");
    if (!v.is_number_unsigned() && v.get<std::int64_t>() <= 0) throw model_file_error(file, "\"" + key + "\" must be positive, not " + json_text(v));
    if (v.get<std::uint64_t>() == 0) throw model_file_error(file, "\"" + key + "\" must be positive, not 0");
    return v.get<std::size_t>();
}

/// A real number a model file states (a RoPE base, a norm's epsilon): positive and finite.
inline double positive_number(const nlohmann::json& v, const std::string& key, const std::string& file)
{
    if (!v.is_number()) throw model_file_error(file, "\"" + key + "\" is not a number (" + json_text(v) + ")");
    const double x = v.get<double>();
    if (!std::isfinite(x) || x <= 0)  // JSON has no NaN or infinity: a GGUF float may be either, json_text would say null
        throw model_file_error(file, "\"" + key + "\" must be a positive finite number, not " +
                                         (std::isnan(x) ? "NaN" : std::isinf(x) ? (x > 0 ? "infinity" : "-infinity") : json_text(v)));
    return x;
}

/// A flag a model file states: true or false, never a string or a number read as one.
inline bool boolean_flag(const nlohmann::json& v, const std::string& key, const std::string& file)
{
    if (!v.is_boolean()) throw model_file_error(file, "\"" + key + "\" is not true or false (" + json_text(v) + ")");
    return v.get<bool>();
}

inline std::size_t config_size(const nlohmann::json& j, const std::string& file, std::initializer_list<const char*> keys, bool required = true,
                               std::size_t fallback = 0)
{
    const char* key = nullptr;
    const nlohmann::json* v = config_key(j, keys, &key);
    if (v == nullptr) {
        if (required) throw model_file_error(file, std::string("config lacks \"") + *keys.begin() + "\"");
        return fallback;
    }
    return positive_size(*v, key, file);
}

inline double config_number(const nlohmann::json& j, std::initializer_list<const char*> keys, double fallback, const std::string& file)
{
    const char* key = nullptr;
    const nlohmann::json* v = config_key(j, keys, &key);
    return v == nullptr ? fallback : positive_number(*v, key, file);
}

/// A token id the config names (null or absent: none); it must be an id of the vocabulary.
inline std::optional<std::size_t> config_token(const nlohmann::json& j, const char* key, std::size_t vocabulary, const std::string& file)
{
    const nlohmann::json* v = config_key(j, {key});
    if (v == nullptr) return std::nullopt;
    if (!v->is_number_integer() || v->get<std::int64_t>() < 0)
        throw model_file_error(file, std::string("\"") + key + "\" is not a non-negative integer (" + json_text(*v) + ")");
    const auto id = v->get<std::uint64_t>();
    if (id >= vocabulary)
        throw model_file_error(file, std::string("\"") + key + "\" " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(vocabulary));
    return static_cast<std::size_t>(id);
}

/// The model types whose attention applies a stated "sliding_window" unless "use_sliding_window"
/// says otherwise: transformers' Mistral and Phi-3 (and, conservatively, any other type of the
/// Llama layout); Qwen2, Qwen3 and SmolLM3 default to use_sliding_window false.
inline bool applies_window_by_default(const std::string& model_type)
{
    return model_type != "qwen2" && model_type != "qwen3" && model_type != "smollm3" && model_type != "gpt2" && model_type != "gpt_neox";
}

/// Each layer's sliding window (0: full attention), or an empty list when no layer has one.
inline std::vector<std::size_t> attention_windows(const nlohmann::json& j, const std::string& model_type, std::size_t layers, const std::string& file)
{
    const auto window = [&]() { return config_size(j, file, {"sliding_window"}); };  // required once a layer is windowed
    std::vector<std::size_t> windows;
    if (const auto* types = config_key(j, {"layer_types"})) {
        if (!types->is_array() || types->size() != layers)
            throw model_file_error(file, "\"layer_types\" must be a list of one attention type per layer (" + std::to_string(layers) +
                                             " layers), not " + json_text(*types));
        for (std::size_t l = 0; l < types->size(); ++l) {
            const auto& type = (*types)[l];
            const std::string name = type.is_string() ? type.get<std::string>() : "";
            if (name == "full_attention") windows.push_back(0);
            else if (name == "sliding_attention") windows.push_back(window());
            else
                throw model_file_error(file, "\"layer_types\" gives layer " + std::to_string(l) + " the attention type " + json_text(type) +
                                                 "; qkov reads \"full_attention\" and \"sliding_attention\"");
        }
    } else {
        const auto* use = config_key(j, {"use_sliding_window"});
        const bool windowed = use ? boolean_flag(*use, "use_sliding_window", file) : applies_window_by_default(model_type) && config_key(j, {"sliding_window"});
        if (windowed) windows.assign(layers, window());
    }
    if (std::all_of(windows.begin(), windows.end(), [](std::size_t w) { return w == 0; })) windows.clear();
    return windows;
}

/// The RoPE settings object: "rope_parameters" itself, or, when it is keyed by layer type
/// (transformers 5, Gemma 3: {"full_attention": {...}, "sliding_attention": {...}}), the one every
/// layer uses; layers with different settings are refused, as qkov rotates every RoPE layer alike.
inline const nlohmann::json* rope_parameters(const nlohmann::json& j, const std::vector<std::size_t>& windows, const std::string& file)
{
    const auto* params = config_key(j, {"rope_parameters"});
    if (params == nullptr || !params->is_object()) return params;
    const bool by_type = params->contains("full_attention") || params->contains("sliding_attention");
    if (!by_type) return params;
    const bool any_full = windows.empty() || std::any_of(windows.begin(), windows.end(), [](std::size_t w) { return w == 0; });
    const bool any_sliding = std::any_of(windows.begin(), windows.end(), [](std::size_t w) { return w != 0; });
    const auto* full = params->contains("full_attention") ? &(*params)["full_attention"] : nullptr;
    const auto* sliding = params->contains("sliding_attention") ? &(*params)["sliding_attention"] : nullptr;
    if (any_full && any_sliding && full && sliding && *full != *sliding)
        throw model_file_error(file, "\"rope_parameters\" gives full-attention and sliding-window layers different RoPE settings; qkov rotates "
                                     "every RoPE layer alike");
    const auto* used = any_full ? full : sliding;
    if (used == nullptr)
        throw model_file_error(file, std::string("\"rope_parameters\" is keyed by layer type but has no \"") + (any_full ? "full_attention" : "sliding_attention") +
                                         "\" entry for this model's layers");
    if (!used->is_object()) throw model_file_error(file, "\"rope_parameters\" entry is not an object (" + json_text(*used) + ")");
    return used;
}

/// SmolLM3's per-layer RoPE flags: "no_rope_layers" as given, or the interval pattern.
inline std::vector<bool> smollm3_rope_layers(const nlohmann::json& j, std::size_t layers, const std::string& file)
{
    std::vector<bool> rotates;
    const auto* list = config_key(j, {"no_rope_layers"});
    if (list == nullptr) {
        // transformers' SmolLM3Config: no_rope_layers[l] = int((l + 1) % no_rope_layer_interval != 0).
        const std::size_t interval = config_size(j, file, {"no_rope_layer_interval"}, false, 4);
        for (std::size_t l = 0; l < layers; ++l) rotates.push_back((l + 1) % interval != 0);
        return rotates;
    }
    // transformers reads the first num_hidden_layers entries of a longer list; a list of another
    // length more likely belongs to another depth of model than to this one, so it is refused.
    if (!list->is_array() || list->size() != layers)
        throw model_file_error(file, "\"no_rope_layers\" must be a list of one 0/1 flag per layer (" + std::to_string(layers) + " layers), not " +
                                         list->dump());
    for (std::size_t l = 0; l < layers; ++l) {
        const auto& flag = (*list)[l];
        if (!flag.is_number_integer() || (flag.get<std::int64_t>() != 0 && flag.get<std::int64_t>() != 1))
            throw model_file_error(file, "\"no_rope_layers\" entry " + std::to_string(l) + " is " + flag.dump() + ", not 0 (NoPE) or 1 (RoPE)");
        rotates.push_back(flag.get<std::int64_t>() == 1);
    }
    return rotates;
}

/// The RoPE settings a head of width `head_dim` can run: at least one pair, whole pairs, no wider
/// than the head, and a base above 1 (below it the angles base^(-2i/d) grow instead of fall: a
/// base of 1e-300 makes angles near 1e225, which no claim about RoPE is about).
inline void check_rope(const rope_config& r, std::size_t head_dim, const std::string& file)
{
    const std::string dim = "the rotary dimension " + std::to_string(r.rotary_dim);
    if (r.rotary_dim == 0) throw model_file_error(file, dim + " rotates no pair (the head width is " + std::to_string(head_dim) + ")");
    if (r.rotary_dim > head_dim) throw model_file_error(file, dim + " exceeds the head width " + std::to_string(head_dim));
    if (r.rotary_dim % 2 != 0) throw model_file_error(file, dim + " is odd: RoPE rotates pairs");
    if (!(r.base > 1.0)) throw model_file_error(file, "the RoPE base " + nlohmann::json(r.base).dump() + " is not above 1");
}

} // namespace detail

inline model_config parse_model_config(const nlohmann::json& j, const std::string& file)
{
    using detail::config_key;
    using detail::config_size;
    model_config c;
    const auto* type = config_key(j, {"model_type"});
    if (type == nullptr || !type->is_string()) throw model_file_error(file, "config lacks a string \"model_type\"");
    c.model_type = type->get<std::string>();
    if (const auto* arch = config_key(j, {"architectures"}); arch && arch->is_array() && !arch->empty() && (*arch)[0].is_string())
        c.architecture = (*arch)[0].get<std::string>();
    else
        c.architecture = c.model_type;
    const std::string& t = c.model_type;
    refuse_unmodelled_architecture(t == "llama4_text" ? "llama4" : t, file);
    const auto* known = find_architecture(t);
    if (known == nullptr) throw model_file_error(file, "unknown architecture (model_type \"" + t + "\"; qkov reads " + known_model_types() + ")");
    c.family = known->family, c.norm = known->norm;
    const family_layout& layout = layout_of(c.family);

    c.hidden_size = config_size(j, file, {"hidden_size", "n_embd"});
    c.layers = config_size(j, file, {"num_hidden_layers", "n_layer"});
    c.heads = config_size(j, file, {"num_attention_heads", "n_head"});
    c.kv_heads = config_size(j, file, {"num_key_value_heads"}, false, c.heads);
    c.vocab_size = config_size(j, file, {"vocab_size"});
    c.max_positions = config_size(j, file, {"max_position_embeddings", "n_positions", "n_ctx"}, false, 0);
    c.bos_token_id = detail::config_token(j, "bos_token_id", c.vocab_size, file);
    if (config_key(j, {"head_dim"}) != nullptr) c.head_dim = config_size(j, file, {"head_dim"});
    else {
        if (c.hidden_size % c.heads != 0)
            throw model_file_error(file, std::to_string(c.heads) + " heads do not divide the width " + std::to_string(c.hidden_size));
        c.head_dim = c.hidden_size / c.heads;
    }
    if (c.heads % c.kv_heads != 0)
        throw model_file_error(file, std::to_string(c.kv_heads) + " key/value heads do not divide the " + std::to_string(c.heads) + " query heads");
    const auto* tied = config_key(j, {"tie_word_embeddings"});
    c.tied_embeddings = tied ? detail::boolean_flag(*tied, "tie_word_embeddings", file) : layout.tied_by_default;
    if (const auto* dt = config_key(j, {"dtype", "torch_dtype"}); dt && dt->is_string()) c.dtype = dt->get<std::string>();
    c.norm_eps = detail::config_number(j, {"rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon"}, 1e-5, file);
    if (const auto* act = config_key(j, {"activation_function", "hidden_act"}); act && act->is_string()) c.activation = act->get<std::string>();
    else c.activation = layout.activation;
    if (c.family == model_family::gpt_neox) {  // transformers' default for GPT-NeoX is the parallel residual
        const auto* parallel = config_key(j, {"use_parallel_residual"});
        c.parallel_residual = parallel == nullptr || detail::boolean_flag(*parallel, "use_parallel_residual", file);
    }

    refuse_unmodelled_config(j, c.family, c.head_dim, file);
    c.attention_windows = detail::attention_windows(j, t, c.layers, file);

    if (!layout.learned_positions) {
        static const nlohmann::json empty = nlohmann::json::object();
        const auto* params = detail::rope_parameters(j, c.attention_windows, file);
        const nlohmann::json& p = params && params->is_object() ? *params : empty;
        rope_config r;
        const double default_base = t == "smollm3" ? 2000000.0 : 10000.0;  // SmolLM3Config.default_theta
        r.base = detail::config_number(p, {"rope_theta"}, detail::config_number(j, {"rope_theta", "rotary_emb_base"}, default_base, file), file);
        const double fraction =
            detail::config_number(p, {"partial_rotary_factor"}, detail::config_number(j, {"partial_rotary_factor", "rotary_pct"}, 1.0, file), file);
        if (!(fraction > 0.0 && fraction <= 1.0)) throw model_file_error(file, "the rotary fraction must be in (0, 1]");
        // As transformers: int(head_dim x fraction). An odd width is refused (check_rope), never
        // rounded to a pair the model does not rotate.
        r.rotary_dim = static_cast<std::size_t>(static_cast<double>(c.head_dim) * fraction);
        const nlohmann::json* scaling = config_key(j, {"rope_scaling"});
        if (scaling != nullptr && !scaling->is_object()) throw model_file_error(file, "\"rope_scaling\" is not an object (" + detail::json_text(*scaling) + ")");
        if (scaling == nullptr) scaling = params && params->is_object() ? params : nullptr;
        if (scaling) {
            const auto* kind = config_key(*scaling, {"rope_type", "type"});
            if (kind && !kind->is_string()) throw model_file_error(file, "the RoPE scaling type is not a string (" + detail::json_text(*kind) + ")");
            if (kind && kind->get<std::string>() != "default") {
                const std::string type = kind->get<std::string>();
                if (std::find(modelled_rope_scalings.begin(), modelled_rope_scalings.end(), type) == modelled_rope_scalings.end())
                    throw model_file_error(file, "RoPE scaling \"" + type + "\" is not modelled: it changes the angles with the sequence length or "
                                                 "multiplies the scores by an attention factor; qkov applies linear, llama3 and dynamic (docs/unmodelled.md)");
                if (type == "dynamic" && c.max_positions == 0)
                    throw model_file_error(file, "dynamic RoPE scaling without \"max_position_embeddings\": qkov reads its angles as unscaled, which "
                                                 "holds only within the context the model declares");
                rope_scaling s{type, detail::config_number(*scaling, {"factor"}, 1.0, file)};
                s.low_freq_factor = detail::config_number(*scaling, {"low_freq_factor"}, s.low_freq_factor, file);
                s.high_freq_factor = detail::config_number(*scaling, {"high_freq_factor"}, s.high_freq_factor, file);
                s.original_max_position_embeddings =
                    detail::config_number(*scaling, {"original_max_position_embeddings"}, s.original_max_position_embeddings, file);
                r.scaling = s;
            }
        }
        detail::check_rope(r, c.head_dim, file);
        c.rope = r;
    }
    if (t == "smollm3") c.rope_layers = detail::smollm3_rope_layers(j, c.layers, file);
    return c;
}

} // namespace qkov::io
