// qkov inspect PATH [--json FILE]: what a model file holds, read through the head model.
// Every head it lists is loaded and validated, so a NaN weight or a truncated shard fails here.
#pragma once

#include <CLI/CLI.hpp>

#include "subcommand.hpp"

namespace qkov::app {

subcommand add_inspect(CLI::App& app);

} // namespace qkov::app
