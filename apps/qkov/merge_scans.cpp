#include "merge_scans.hpp"

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/io/json_release.hpp"
#include "qkov/io/memory_headroom.hpp"
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
    const std::filesystem::path json(o.json);
    if (json.has_parent_path()) std::filesystem::create_directories(json.parent_path());
    const auto tensors = json.parent_path() / scan::composition_tensors_name(json);
    auto merged = scan::merge_scans(scan::read_scan_shards({o.shards.begin(), o.shards.end()}), tensors);
    // The whole scan's tree, released without allocating however this function ends (a bad_alloc
    // in writing its text would otherwise unwind into the tree's allocating destructor).
    const io::json_tree_release release_merged(merged);
    auto text = merged.dump(1);
    text += '\n';  // appended in place: `dump(1) + "\n"` held the whole text twice
    report::write_report_file(o.json, text);
    std::cout << o.shards.size() << " scans merged: layers 0-" << merged[k::scanned_layers][1].get<std::size_t>() << ", " << merged[k::heads].size()
              << " heads, " << merged[k::composition][k::pair_count].get<std::size_t>() << " composition pairs, into " << o.json << " (the pairs' tensors in "
              << tensors.string() << ")\n";
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
    command->add_option("--json", options->json, "Write the whole scan's JSON to this file, its pairs' tensors beside it (FILE.json -> FILE.tensors.safetensors)")
        ->required();
    // Out of memory, the shards' size says what the join needed (the check before parsing passed,
    // so the memory went while the trees were built or written).
    const auto advice = [options] {
        std::string sizes = "joining the shards";
        try {
            const auto bytes = scan::shard_bytes({options->shards.begin(), options->shards.end()});
            sizes = "the shards total " + io::megabytes(bytes) + " (a join of scan documents that size takes about " + io::megabytes(scan::merge_memory_needed(bytes)) +
                    "); joining these";
        } catch (const std::exception&) {  // a shard gone since: the advice without its size
        }
        return sizes + " took more than this process could get (their trees and the whole scan's text); merge on a machine with more memory, or under a "
                       "higher limit (ulimit -v)";
    };
    return {command, [options] { return run(*options); }, advice};
}

} // namespace qkov::app
