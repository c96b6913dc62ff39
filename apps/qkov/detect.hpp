// qkov detect PATH [--json FILE] [--markdown FILE] [--figures DIR] [--length N] [--samples K] [--seed S]
//                  [--bos ID] [--dtype float32|float64] [--scan FILE] [--threads N]:
// every head's behaviour from the model's own forward pass (include/qkov/detect): TransformerLens'
// previous-token, duplicate-token and induction scores, repeat attention by shift, attention to BOS
// and by offset, and copying through the head's own logits, on seeded [BOS] + r + r sequences, mean
// and spread, and the behaviours each head shows (docs/DETECT.md). Given the JSON of `qkov scan` for
// the same model, weight labels against behaviour with confusion counts per label. One progress
// line per sample on standard error.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

int detect(const detect_cli_options& options);

subcommand add_detect(CLI::App& app);

} // namespace qkov::app
