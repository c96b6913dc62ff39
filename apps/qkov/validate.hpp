// qkov validate: the high-precision validation table (claims R1, R2, R4, R5, T2, B2, B3 at 50 and
// 100 digits; residual, bound, time), printed and written as Markdown and JSON.
#pragma once

#include <CLI/CLI.hpp>

#include "subcommand.hpp"

namespace qkov::app {

subcommand add_validate(CLI::App& app);

} // namespace qkov::app
