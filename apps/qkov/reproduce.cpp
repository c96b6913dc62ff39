#include "reproduce.hpp"

#include <chrono>
#include <cstdio>
#include <sstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "qkov/report/report_file.hpp"
#include "qkov/experiments/copy_head_experiment.hpp"
#include "qkov/experiments/experiment.hpp"
#include "qkov/experiments/induction_head_experiment.hpp"
#include "qkov/experiments/pointer_induction_experiment.hpp"
#include "qkov/experiments/previous_token_experiment.hpp"
#include "qkov/experiments/semantic_head_experiment.hpp"

#include "qkov/io/document_schemas.hpp"

namespace qkov::app {

namespace {

struct experiment_entry {
    const char* name;
    std::function<experiments::experiment_result(const experiments::experiment_settings&)> run;
};

const std::vector<experiment_entry>& all_experiments()
{
    static const std::vector<experiment_entry> list{
        {"R6 previous-token head", experiments::run_previous_token_experiment},
        {"R10/R11/R13 semantic heads", experiments::run_semantic_head_experiment},
        {"R14/K2 copy heads", experiments::run_copy_head_experiment},
        {"T6 pointer-arithmetic induction head", experiments::run_pointer_induction_experiment},
        {"T7 induction head under RoPE", experiments::run_induction_head_experiment},
    };
    return list;
}

/// "R10, R11, R13" -> {"R10", "R11", "R13"}: the claims an experiment's result names.
std::vector<std::string> claim_ids(const std::string& ids)
{
    std::vector<std::string> out;
    std::istringstream in(ids);
    for (std::string id; std::getline(in, id, ',');) {
        const auto first = id.find_first_not_of(' ');
        if (first != std::string::npos) out.push_back(id.substr(first, id.find_last_not_of(' ') - first + 1));
    }
    if (out.empty()) throw std::logic_error("qkov: an experiment's result names no claim id");
    return out;
}

} // namespace

int reproduce(const reproduce_options& options)
{
    const experiments::experiment_settings settings{options.out_dir, options.small ? experiments::experiment_size::small
                                                                                    : experiments::experiment_size::full};
    if (options.out_dir.empty()) throw std::invalid_argument("reproduce --out: the output directory name is empty");
    std::filesystem::create_directories(options.out_dir);
    const auto& list = all_experiments();
    std::string sections;
    nlohmann::json checks = nlohmann::json::array();
    int failures = 0;
    for (std::size_t k = 0; k < list.size(); ++k) {
        std::printf("[%zu/%zu] %s ...", k + 1, list.size(), list[k].name);
        std::fflush(stdout);
        const auto start = std::chrono::steady_clock::now();
        const auto result = list[k].run(settings);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf(" %.2f s, %zu figure(s), %s\n", seconds, result.figures.size(),
                    result.ok() ? "all stated facts hold" : "SOME STATED FACTS FAIL");
        for (const auto& f : result.failed_facts) std::printf("    FAILED: %s\n", f.c_str());
        failures += result.ok() ? 0 : 1;
        sections += result.markdown();
        checks.push_back({{"section", list[k].name}, {"claims", claim_ids(result.id)}, {"failed_facts", result.failed_facts}});
    }
    const auto index = options.out_dir / "index.md";
    std::ostringstream out;
    out << "# qkov: the seed experiments\n\n"
        << "Written by `qkov reproduce --out " << options.out_dir.string() << (options.small ? " --small" : "")
        << "`; each section also names the example that regenerates it alone. The numbers behind every table and "
           "figure are in the JSON file next to it. Comparisons marked *validation* are floating-point agreements within "
           "a tolerance, not proofs.\n\n"
        << sections;
    report::write_report_file(index, out.str());
    report::write_report_file(options.out_dir / "experiments.json",
                              nlohmann::json{{"schema", schemas::reproduce}, {"experiments", checks}}.dump(1) + '\n');
    std::printf("wrote %s and experiments.json (%zu experiments, %d with failed facts)\n", index.string().c_str(), list.size(), failures);
    return failures;
}

subcommand add_reproduce(CLI::App& app)
{
    auto options = std::make_shared<reproduce_options>();
    auto* c = app.add_subcommand("reproduce", "Run every seed experiment and write report/index.md with its figures and tables");
    c->add_option("--out", options->out_dir, "Output directory for index.md, experiments.json, figures and JSON");
    c->add_flag("--small", options->small, "Small sizes (a quick check), not the seeds' sizes");
    return {c, [options] { return reproduce(*options) == 0 ? 0 : 1; }};
}

} // namespace qkov::app
