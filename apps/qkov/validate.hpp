// qkov validate: the high-precision validation table (claims R1, R2, R4, R5, T2, B2, B3 at 50 and
// 100 digits; residual, bound, time), printed and written as Markdown and JSON. Each JSON row names
// its claim id: `qkov claims --validation` reads the rows back as the kind-H checks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "subcommand.hpp"

namespace CLI {
class App;
class Validator;
}

namespace qkov::app {

struct validate_options {
    std::vector<int> digits{50, 100};
    std::string backend = "cpp_bin_float";
    bool quick = false;
    std::string markdown = "report/validation.md";
    std::string json = "report/validation.json";
    std::optional<std::int64_t> max_position;  ///< empty: precision::validation_plan's default
    std::vector<std::string> claims;           ///< the rows to run; empty: every claim
};

/// Exit status 0 when every residual is within its bound (the files are written either way).
int validate(const validate_options& options);

/// The --digits check shared by validate and report: 50 or 100, named before anything runs.
CLI::Validator validation_digits();

subcommand add_validate(CLI::App& app);

} // namespace qkov::app
