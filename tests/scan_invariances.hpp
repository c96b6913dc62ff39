// Two properties of the whole scan, as `qkov scan --json` writes it, checked on any model: its
// shards merge to the whole scan (and each shard is the same with the inputs the shards share,
// scan/shard_inputs.hpp), and no thread count changes it. unit.scan checks them on the
// fixtures under the sanitizers, unit.scan_trained on stories260K in the release build (its 9
// scans took 38 s under AddressSanitizer, 2 s in the release build).
#pragma once

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/numeric/blas_threads.hpp"
#include "qkov/numeric/parallel_blocks.hpp"
#include "qkov/scan/composition_tensors.hpp"
#include "qkov/scan/scan_facts.hpp"
#include "qkov/scan/scan_json.hpp"
#include "qkov/scan/scan_merge.hpp"
#include "model_runs.hpp"

namespace qkov::test {

/// A scan of layers first..last (the model's last when unset) written as `qkov scan --json
/// dir/file` writes it, the document and its pairs' tensors beside it, and read back as a shard
/// named `name`. The tensors must hold every pair of the scan at its place, to the bit, and NaN
/// everywhere else.
inline scan::scan_shard scan_files(const qkov::model::attention_model& m, std::size_t first, std::optional<std::size_t> last, const std::filesystem::path& dir, const std::string& name,
                                   const std::filesystem::path& shared_inputs = {})
{
    scan::scan_options o;
    o.first_layer = first, o.last_layer = last;
    o.shared_inputs = shared_inputs;
    const auto r = qkov::runs::scan_model(m, o);
    const nlohmann::json summary = {{"layers", m.config().layers}, {"heads", m.config().heads}, {"head_dim", m.config().head_dim}};
    std::filesystem::create_directories(dir);
    scan::write_scan_files(dir / name, r, scan::model_facts(r), summary, "model", first, last.value_or(m.config().layers - 1));
    auto shard = scan::read_scan_shard(dir / name);
    shard.name = name;
    const auto& c = shard.document.at("composition");
    BOOST_TEST(c.at("pairs").get<std::size_t>() == r.composition.size());
    const std::size_t L = m.config().layers, H = m.config().heads;
    const scan::composition_tensors_reader tensors(dir / c.at("tensors").get<std::string>(), c.at("sha256").get<std::string>(), L, H);
    BOOST_TEST(tensors.shape().spectrum == m.config().head_dim);
    std::vector<double> row(L * H), spectra(L * H * tensors.shape().spectrum);
    // Every tensor: as many places hold values as there are pairs, the NaN of absence in all others.
    for (std::size_t t = 0; t < 4; ++t) {
        std::size_t finite = 0, absent = 0;
        auto& values = t == 3 ? spectra : row;
        for (std::size_t sl = 0; sl < L; ++sl)
            for (std::size_t sh = 0; sh < H; ++sh) {
                tensors.read(t, sl, sh, 0, L - 1, values);
                finite += static_cast<std::size_t>(std::count_if(values.begin(), values.end(), [](double v) { return std::isfinite(v); }));
                absent += static_cast<std::size_t>(std::count_if(values.begin(), values.end(), scan::marks_absence));
            }
        const std::size_t per_pair = t == 3 ? tensors.shape().spectrum : 1;
        BOOST_TEST(finite == r.composition.size() * per_pair);
        BOOST_TEST(absent == (L * H * L * H - r.composition.size()) * per_pair);
    }
    for (const auto& p : r.composition) {
        for (std::size_t t = 0; t < 3; ++t) {
            tensors.read(t, p.source_layer, p.source_head, 0, L - 1, row);
            BOOST_TEST(row[p.target_layer * H + p.target_head] == (t == 0 ? p.q : t == 1 ? p.k : p.v));
        }
        tensors.read(3, p.source_layer, p.source_head, 0, L - 1, spectra);
        const auto& t3 = p.t3_singular_values();
        for (std::size_t i = 0; i < t3.size(); ++i) BOOST_TEST(spectra[(p.target_layer * H + p.target_head) * tensors.shape().spectrum + i] == t3(i));
    }
    return shard;
}

/// Scans `m` whole and in shards of the given ranges (handed to the merge last first), and requires
/// the merge to equal the whole scan, every field of the document (nothing is excluded, as the
/// merged document records the whole range 0..L-1 the whole scan records) and every byte of the
/// tensors (the documents name them by their SHA-256, compared too).
inline void check_shards_merge_to_whole(const std::filesystem::path& dir, const std::vector<std::pair<std::size_t, std::size_t>>& ranges)
{
    const auto m = qkov::runs::open_model(dir);
    const auto out = std::filesystem::temp_directory_path() / ("scan-tests-merge-" + dir.filename().string());
    std::filesystem::remove_all(out);
    const auto whole = scan_files(m, 0, std::nullopt, out / "whole", "scan.json");
    // The inputs the shards share, prepared once: each shard that reads them writes the document it
    // writes without them (the documents name their tensors by SHA-256: the tensors too).
    std::vector<std::size_t> starts;
    for (const auto& range : ranges) starts.push_back(range.first);
    runs::prepare_shard_inputs(m, starts, out / "shared", {});
    std::vector<scan::scan_shard> shards;
    std::size_t pairs = 0;
    for (const auto& [first, last] : ranges) {
        const std::string range = std::to_string(first) + "-" + std::to_string(last);
        shards.insert(shards.begin(), scan_files(m, first, last, out / range, "scan.json"));
        pairs += shards.front().document["composition"]["pairs"].get<std::size_t>();
        const auto shared = scan_files(m, first, last, out / (range + "-shared"), "scan.json", out / "shared").document;
        BOOST_TEST((shared == shards.front().document),
                   dir << ": shard " << range << " with the shared inputs differs: " << nlohmann::json::diff(shards.front().document, shared).dump().substr(0, 600));
    }
    BOOST_TEST(pairs == whole.document["composition"]["pairs"].get<std::size_t>(), dir);
    BOOST_TEST(!whole.document["facts"].empty());
    std::filesystem::create_directories(out / "merged");
    const auto merged = scan::merge_scans(shards, out / "merged" / "scan.tensors.safetensors");
    BOOST_TEST((merged == whole.document), dir << ": the merge differs from the whole scan: " << nlohmann::json::diff(whole.document, merged).dump().substr(0, 600));
    const auto bytes = [](const std::filesystem::path& file) {
        std::ifstream in(file, std::ios::binary);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    };
    BOOST_TEST((bytes(out / "merged" / "scan.tensors.safetensors") == bytes(out / "whole" / "scan.tensors.safetensors")), dir);
    std::filesystem::remove_all(out);
}

/// Scans the model at `dir` whole with 1, 2 and 3 workers and 1 and 3 BLAS threads, and requires
/// the same document to the bit each time. The scan's parallel work is blocks fixed by the model
/// (heads, composition sources, the token circuit's columns) with BLAS on each block's thread, so
/// no worker count may change it, whatever OpenBLAS's own count (3 BLAS threads changed T3's last
/// bits when the composition product was one BLAS call). 3 workers do not divide 4 heads evenly.
inline void check_thread_counts_leave_the_scan_unchanged(const std::filesystem::path& dir)
{
    const auto saved_blas = numeric::blas_threads();
    const auto threads_dir = std::filesystem::temp_directory_path() / ("scan-tests-threads-" + dir.filename().string());
    const auto m = runs::open_model(dir);
    std::optional<nlohmann::json> one;
    for (const auto& [workers, blas] : std::vector<std::pair<std::size_t, int>>{{1, 1}, {2, 2}, {3, 3}, {3, 1}, {1, 3}}) {
        numeric::set_worker_count(workers);
        numeric::set_blas_threads(blas);
        // The document names the tensors by their SHA-256: equal documents, equal tensors.
        const auto document = scan_files(m, 0, std::nullopt, threads_dir, "scan.json").document;
        if (!one) one = document;
        else BOOST_TEST((document == *one), dir << ": " << workers << " workers, " << blas << " BLAS threads against 1, 1: "
                                                << nlohmann::json::diff(*one, document).dump().substr(0, 600));
    }
    numeric::set_worker_count(0);
    if (saved_blas) numeric::set_blas_threads(*saved_blas);
    std::filesystem::remove_all(threads_dir);
}

} // namespace qkov::test
