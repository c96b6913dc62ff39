// A model's summary as `qkov inspect` reports it (architecture, format, geometry, embeddings,
// biases, RoPE): the "model" object of inspect's, scan's and detect's JSON and the model table of
// scan's Markdown, and the Python module's Model.config, so all of them agree.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/model/attention_model.hpp"

namespace qkov::model {

namespace detail {

inline std::string stored_dtype(const io::tensor_source& source)
{
    std::string dtype;
    for (const auto& name : source.names()) {
        const auto* t = source.find(name);
        if (t == nullptr) continue;
        const std::string d(io::dtype_name(t->dtype));
        if (dtype.empty()) dtype = d;
        else if (dtype != d) return "mixed";
    }
    return dtype;
}

// The fields in the order a reader wants them (the JSON object itself sorts its keys).
inline constexpr const char* field_order[] = {"architecture", "family",     "format",          "dtype",     "hidden_size",      "layers",
                                              "heads",        "kv_heads",   "head_dim",        "vocab_size", "tied_embeddings", "embedding",
                                              "unembedding",  "attention_biases", "rope",      "nope_layers", "attention_windows"};

} // namespace detail

/// The summary's fields; reads the file's tensor table for the stored dtype, no weights.
inline nlohmann::json model_summary(const model::attention_model& m)
{
    const auto& c = m.config();
    nlohmann::json j;
    j["architecture"] = c.architecture;
    j["family"] = io::model_family_name(c.family);
    j["format"] = m.source().format();
    j["dtype"] = detail::stored_dtype(m.source());
    j["hidden_size"] = c.hidden_size;
    j["layers"] = c.layers;
    j["heads"] = c.heads;
    j["kv_heads"] = c.kv_heads;
    j["head_dim"] = c.head_dim;
    j["vocab_size"] = c.vocab_size;
    j["tied_embeddings"] = c.tied_embeddings;
    j["embedding"] = m.embedding_status();
    j["unembedding"] = m.unembedding_status();
    j["attention_biases"] = m.has_attention_biases();
    if (c.rope) {
        nlohmann::json scaling = nullptr;
        if (c.rope->scaling) scaling = {{"type", c.rope->scaling->type}, {"factor", c.rope->scaling->factor}};
        j["rope"] = {{"pairing", c.rope->pairing == rope_pairing::interleaved ? "interleaved" : "rotate_half"},
                     {"rotary_dim", c.rope->rotary_dim},
                     {"base", c.rope->base},
                     {"scaling", scaling}};
    } else {
        j["rope"] = nullptr;
    }
    if (c.rope && c.any_nope_layer()) {  // SmolLM3's layers without RoPE: listed, as a reader would otherwise assume every layer rotates
        nlohmann::json nope = nlohmann::json::array();
        for (std::size_t l = 0; l < c.layers; ++l)
            if (!c.rope_at(l)) nope.push_back(l);
        j["nope_layers"] = nope;
    }
    if (!c.attention_windows.empty()) j["attention_windows"] = c.attention_windows;  // per layer, 0: full attention
    return j;
}

/// The same fields as (name, value) text rows for a table, in the JSON's order.
inline std::vector<std::pair<std::string, std::string>> model_summary_rows(const nlohmann::json& summary)
{
    std::vector<std::pair<std::string, std::string>> rows;
    for (const char* field : detail::field_order) {
        if (!summary.contains(field)) continue;
        const auto& v = summary[field];
        if (v.is_string()) rows.emplace_back(field, v.get<std::string>());
        else if (v.is_null()) rows.emplace_back(field, field == std::string("rope") ? "none (learned absolute positions)" : "none");
        else rows.emplace_back(field, v.dump());
    }
    return rows;
}

} // namespace qkov::model
