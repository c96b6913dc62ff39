// Opening a model file and scanning its weights, compiled once (model_runs.cpp, target
// qkov_model_runs) for the command-line tool, the Python module and the Boost.Test suites that only
// call them: every caller of model::open_model and scan::scan_model compiled the checkpoint readers
// and the whole scan again (about 15 and 35 CPU seconds per translation unit under the sanitizers
// at -O1, 20 and 25 with g++ at -O3). Declarations only: including this header compiles none of it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <vector>

#include "qkov/model/attention_model.hpp"
#include "qkov/scan/scan_options.hpp"
#include "qkov/scan/scan_result.hpp"

namespace qkov::runs {

/// model::open_model: a Hugging Face directory or safetensors file, a GGUF file or a llama2.c checkpoint.
model::attention_model open_model(const std::filesystem::path& path);

/// scan::scan_model: every head's metrics, evidence and labels, and the composition pairs.
scan::scan_result scan_model(const model::attention_model& m, scan::scan_options options = {});

/// scan::prepare_shard_inputs: what shards starting at `starts` share, written into `dir`.
void prepare_shard_inputs(const model::attention_model& m, const std::vector<std::size_t>& starts, const std::filesystem::path& dir,
                          scan::scan_options options, const std::function<void(std::size_t layer)>& on_layer = {});

} // namespace qkov::runs
