// qkov detect PATH [--json FILE] [--markdown FILE] [--figures DIR] [--length N] [--samples K] [--seed S]
//                  [--bos ID] [--dtype float32|float64] [--scan FILE] [--threads N]:
// every head's behaviour from the model's own forward pass (include/qkov/detect): TransformerLens'
// previous-token, duplicate-token and induction scores on seeded [BOS] + r + r sequences, mean and
// spread, and the behaviours each head shows (docs/DETECT.md). Given the JSON of `qkov scan` for
// the same model, a side-by-side of weight labels against behaviour with agreement counts. One
// progress line per sample on standard error.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qkov/detect/weights_vs_behaviour.hpp"
#include "subcommand.hpp"

namespace qkov::app {

struct detect_cli_options {
    std::string path, json, markdown, figures, scan;
    std::size_t length = 50, samples = 10;
    std::uint64_t seed = 0;
    std::optional<std::uint32_t> bos;
    std::string dtype = "float32";
    std::optional<int> threads;
};

/// Every head's labels in the JSON `qkov scan --json` wrote; the file's model must have `layers`
/// layers of `heads` heads. Throws std::runtime_error naming the file and what is wrong with it.
std::vector<detect::weight_labels> read_scan_labels(const std::string& file, std::size_t layers, std::size_t heads);

int detect(const detect_cli_options& options);

subcommand add_detect(CLI::App& app);

} // namespace qkov::app
