// A model's summary as `qkov inspect` reports it (architecture, format, geometry, embeddings,
// biases, RoPE), shared by inspect's JSON and scan's JSON and Markdown so the three agree.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/model/attention_model.hpp"

namespace qkov::app {

/// The summary's fields; reads the file's tensor table for the stored dtype, no weights.
nlohmann::json model_summary(const model::attention_model& m);

/// The same fields as (name, value) text rows for a table, in the JSON's order.
std::vector<std::pair<std::string, std::string>> model_summary_rows(const nlohmann::json& summary);

} // namespace qkov::app
