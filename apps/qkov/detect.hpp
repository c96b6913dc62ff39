// qkov detect PATH [--json FILE] [--markdown FILE] [--figures DIR] [--length N] [--samples K] [--seed S]
//                  [--bos ID] [--dtype float32|float64] [--scan FILE] [--text self|FILE] [--text-length N] [--threads N]:
// every head's behaviour from the model's own forward pass (include/qkov/detect): TransformerLens'
// previous-token, duplicate-token and induction scores, repeat attention by shift, attention to BOS
// and by offset, and copying through the head's own logits, on seeded [BOS] + r + r sequences, mean
// and spread, and the behaviours each head shows (docs/DETECT.md). Given the JSON of `qkov scan` for
// the same model, weight labels against behaviour with confusion counts per label. With --text, the
// same on the model's own text (self: sampled at temperature 1 from BOS, seeded) or a file's token
// ids, beside the random tokens; the labels are judged on the input the scan predicts. One progress
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
    std::string path, json, markdown, figures, scan, text;
    std::optional<std::size_t> text_length;  ///< own text: tokens after BOS (default detect::text_request's)
    std::size_t length = 50, samples = 10;
    std::uint64_t seed = 0;
    std::optional<std::uint32_t> bos;
    std::string dtype = "float32";
    std::optional<int> threads;
};

int detect(const detect_cli_options& options);

subcommand add_detect(CLI::App& app);

} // namespace qkov::app
