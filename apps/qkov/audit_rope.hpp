// qkov audit-rope: how far a RoPE implementation's angles, cos/sin tables and q.k scores fall
// from the 100-digit reference, by position bucket, for fp32/bf16/fp16 recipes and a user's
// .npy table; where the previous-token head breaks; a log-log figure and a JSON.
#pragma once

#include <CLI/CLI.hpp>

#include "subcommand.hpp"

namespace qkov::app {

subcommand add_audit_rope(CLI::App& app);

} // namespace qkov::app
