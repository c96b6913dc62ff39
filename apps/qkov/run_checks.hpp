// The checks a run performed, read back from the files it wrote, so that the claims summary
// reports every kind of check (docs/CLAIMS.md): H from validate's JSON rows, E from reproduce's
// experiments.json, S from qkov scan's JSON files (their "facts"). A kind whose file was not given is "not seen",
// which the summary says instead of pretending the claim was never checked.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace qkov::app {

struct run_check {
    std::string claim;   ///< the claim id it checks, e.g. "B2"
    std::string source;  ///< where: "50 digits (d = 64, D = 768)", "R14/K2 copy heads"
    bool passed = false;
    std::string detail;  ///< the failure, in words (empty when it passed)
};

/// The run data behind kinds H, E and S; nullopt: that kind was not seen by this summary.
struct run_evidence {
    std::optional<std::vector<run_check>> validation;   ///< kind H
    std::optional<std::vector<run_check>> experiments;  ///< kind E
    std::optional<std::vector<run_check>> scans;        ///< kind S
};

/// validate's JSON (schema qkov.validate/1): "rows", each with "claim", "digits", "size" and "within_bound".
std::vector<run_check> read_validation_checks(const std::filesystem::path& json_file);

/// reproduce's experiments.json (schema qkov.reproduce/1): "experiments", each {"section", "claims": [ids],
/// "failed_facts": [text]};
/// one check per claim id of each experiment, passed when none of its stated facts failed.
std::vector<run_check> read_experiment_checks(const std::filesystem::path& json_file);

/// qkov scan's JSON: an object whose "facts" array holds {"claim", "statement", "passed", "detail"}.
std::vector<run_check> read_scan_checks(const std::filesystem::path& json_file);

} // namespace qkov::app
