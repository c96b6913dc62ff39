// qkov merge-scans SHARD.json... --json FILE: the scans of disjoint layer ranges (qkov scan
// --layers A-B, one per cluster task) joined into the document of the whole scan
// (include/qkov/scan/scan_merge.hpp); a set of shards that is not one model's partition, scanned
// alike, is refused by name.
#pragma once

#include <CLI/CLI.hpp>

#include "subcommand.hpp"

namespace qkov::app {

subcommand add_merge_scans(CLI::App& app);

} // namespace qkov::app
