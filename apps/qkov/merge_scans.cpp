#include "merge_scans.hpp"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/report/report_file.hpp"
#include "qkov/scan/scan_json_keys.hpp"
#include "qkov/scan/scan_merge.hpp"
#include "report_paths.hpp"

namespace qkov::app {

namespace {

struct merge_scans_options {
    std::vector<std::string> shards;
    std::string json;
};

int run(const merge_scans_options& o)
{
    namespace k = scan::scan_json_keys;
    check_run_paths({o.json, "", "", "", ""});  // json, markdown, figures, new model, scan
    std::vector<scan::scan_shard> shards;
    for (const auto& file : o.shards) shards.push_back(scan::read_scan_shard(file));
    const auto merged = scan::merge_scans(shards);
    report::write_report_file(o.json, merged.dump(1) + "\n");
    std::cout << shards.size() << " scans merged: layers 0-" << merged[k::scanned_layers][1].get<std::size_t>() << ", " << merged[k::heads].size()
              << " heads, " << merged[k::composition].size() << " composition pairs, into " << o.json << "\n";
    bool all_passed = true;
    for (const auto& f : merged[k::facts]) {
        const bool passed = f.value(k::passed, false);
        std::cout << "  " << f.value(k::claim, std::string()) << " " << (passed ? "holds" : "FAILS") << ": " << f.value(k::statement, std::string()) << " ("
                  << f.value(k::detail, std::string()) << ")\n";
        all_passed = all_passed && passed;
    }
    return all_passed ? 0 : 1;
}

} // namespace

subcommand add_merge_scans(CLI::App& app)
{
    auto options = std::make_shared<merge_scans_options>();
    auto* command = app.add_subcommand("merge-scans", "Join the scans of disjoint layer ranges (qkov scan --layers A-B) into the whole scan's JSON");
    command->add_option("SHARD", options->shards, "The JSON of each qkov scan --layers A-B run; their ranges must cover the model's layers once")
        ->required();
    command->add_option("--json", options->json, "Write the whole scan's JSON to this file")->required();
    return {command, [options] { return run(*options); }};
}

} // namespace qkov::app
