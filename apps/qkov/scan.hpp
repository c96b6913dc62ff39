// qkov scan PATH [--json FILE] [--markdown FILE] [--figures DIR] [--layers A-B] [--shared DIR] [--threads N] [--quiet] [--calibrate random|self|FILE]
//           [--calibrate-samples K] [--calibrate-length N] [--calibrate-seed S]: every attention head of a model analysed from its
// weights (include/qkov/scan): ranks, conditions, QK/OV spectra, distance of OV from identity,
// copying scores, and Q/K/V composition between heads of different layers; labels with their
// evidence (docs/SCAN-LABELS.md) and the facts it states about claims B1, B5, K2 (and R7, R12, T3 on
// the seed-head model). The labels predict behaviour on the input the proxy pass read: random tokens
// by default, the model's own text with --calibrate self, a file's text with --calibrate FILE; the
// output says which. One progress line per layer on standard error (with the time left on a
// terminal; none with --quiet). `--prepare-shards RANGES --shared DIR` writes what the shards of one
// scan share instead (docs/cluster.md), and each shard reads it with `--shared DIR`.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "subcommand.hpp"

namespace qkov::app {

struct scan_cli_options {
    std::string path, json, markdown, figures;
    std::optional<std::string> layers;  ///< absent: every layer; given, even empty, it must be A-B or A
    std::optional<int> threads;   ///< OpenBLAS threads; unset: its own default
    std::string seed_head_model;  ///< write the seed-head model here and scan it (scan/seed_head_model.hpp)
    std::size_t context = 0;      ///< 0: the model's max_positions (scan_model resolves it)
    std::string calibrate = "random";  ///< "random" (the vocabulary in a seeded random context), "self" (the model's own text) or a file of token ids
    std::optional<std::size_t> calibrate_samples, calibrate_length;  ///< --calibrate self: sequences and tokens after BOS (scan::own_text_calibration's defaults)
    std::optional<std::uint64_t> calibrate_seed;
    bool quiet = false;           ///< no progress lines
    std::string timings;          ///< write where the scan's time went, per layer, as JSON here (the benchmarks read it)
    std::string dump_proxy;       ///< write the inputs the certificates are conditional on here (scan/proxy_dump.hpp)
    std::string shared;           ///< the shards' shared inputs (scan/shard_inputs.hpp): read, or with prepare_shards written
    std::string precision = "float32";  ///< the per-token copying's and the composition's bulk products (scan/product_precision.hpp)
    std::optional<std::string> prepare_shards;  ///< the shards' ranges (A-B or A, comma-separated): write their shared inputs, scan nothing
};

/// Runs one scan as the subcommand does; the exit code is 1 when a stated fact fails.
int scan(const scan_cli_options& options);

subcommand add_scan(CLI::App& app);

} // namespace qkov::app
