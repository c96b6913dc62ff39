// qkov claims: which claims of the catalogue are checked, by which proof files and, given the run
// data, by which validation rows and experiments (claims_summary.hpp, run_checks.hpp).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "subcommand.hpp"

namespace CLI {
class App;
}

namespace qkov::app {

struct claims_options {
    std::filesystem::path proofs_dir = "proofs";
    std::filesystem::path include_dir = "include";
    std::filesystem::path catalogue = "docs/CLAIMS.md";
    std::filesystem::path build_dir;    ///< empty: no proof counts as built
    std::filesystem::path validation;   ///< validate's JSON (kind H); empty: H not seen
    std::filesystem::path experiments;  ///< reproduce's experiments.json (kind E); empty: E not seen
    std::vector<std::filesystem::path> scans;  ///< qkov scan's JSON files (kind S); none: S not seen
};

/// The summary as Markdown: the proof files, then every check per claim and the totals per kind.
std::string claims_summary_markdown(const claims_options& options);

subcommand add_claims(CLI::App& app);

} // namespace qkov::app
