// qkov scan PATH [--json FILE] [--markdown FILE] [--figures DIR] [--layers A-B] [--threads N]: every attention head of a model analysed from its
// weights (include/qkov/scan): ranks, conditions, QK/OV spectra, distance of OV from identity,
// copying scores, and Q/K/V composition between heads of different layers. One progress line
// per layer on standard error.
#pragma once

#include <CLI/CLI.hpp>

#include "subcommand.hpp"

namespace qkov::app {

subcommand add_scan(CLI::App& app);

} // namespace qkov::app
