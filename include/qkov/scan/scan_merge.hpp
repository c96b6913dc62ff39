// Joins the JSON documents of scans of disjoint layer ranges (`qkov scan --layers A-B`, the shards
// of a cluster run) into the document of the whole scan (`qkov merge-scans`).
//
// A scan of layers A..B holds the heads of A..B and every composition pair whose later head is in
// A..B (scan_model.hpp), so shards whose ranges partition the model's layers hold every head and
// every pair exactly once. Concatenated in layer order, heads stand in the order the whole scan
// writes them; each pair's numbers are copied from the tensors of the shard holding its target
// layer (composition_tensors.hpp) into the merged tensors, which are then the whole scan's byte
// for byte; the model facts are stated again from the heads (scan_facts.hpp) and the strongest
// edges chosen again from each head's pairs (scan_json.hpp), by the functions the whole scan calls,
// so the merged document equals the whole scan's. Shards must agree on everything else (model,
// conventions, thresholds, proxy input): a difference is named, never averaged away.
//
// Shards are untrusted files: each is read with the limits of every JSON reader here (64 levels,
// no key twice in one object), its tensors only when they are the file its JSON names (SHA-256),
// and the merged document must pass what a whole scan's would: every head of the model exactly
// once, within its shard's layers and the model's heads, with labels of the vocabulary; every
// pair into the shard's layers from an earlier layer, and none else. Memory: the shards' JSON
// (heads, not pairs) and one source head's row of one shard's tensors at a time; the tensor
// files are mapped, and each has the whole model's shape (NaN outside its shard's layers).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/io/document_schemas.hpp"
#include "qkov/io/json_release.hpp"
#include "qkov/io/memory_headroom.hpp"
#include "qkov/io/untrusted_json.hpp"
#include "qkov/labels/vocabulary.hpp"
#include "qkov/scan/composition_tensors.hpp"
#include "qkov/scan/scan_json.hpp"
#include "qkov/scan/scan_json_keys.hpp"

namespace qkov::scan {

/// A merge that cannot be made; the message names the shard and what is wrong.
struct scan_merge_error : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

/// One scan's document, the name its messages use (its file) and the directory of its file, where
/// the tensors its document names are.
struct scan_shard {
    std::string name;
    nlohmann::json document;
    std::filesystem::path directory;
};

/// Throws scan_merge_error unless `file` is a regular file.
inline void require_shard_file(const std::filesystem::path& file)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(file, ec)) throw scan_merge_error("qkov: " + file.string() + ": no such file");
    if (!fs::is_regular_file(file, ec)) throw scan_merge_error("qkov: " + file.string() + ": not a regular file");
}

/// Reads a scan's JSON file; errors name the file.
inline scan_shard read_scan_shard(const std::filesystem::path& file)
{
    require_shard_file(file);
    const std::string name = file.string();
    std::ifstream in(file, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto parsed = io::parse_untrusted_json(text, 64);  // a scan document nests 6 levels
    if (const auto* problem = std::get_if<std::string>(&parsed)) throw scan_merge_error("qkov: " + name + ": " + *problem);
    return {name, std::get<nlohmann::json>(std::move(parsed)), file.parent_path()};
}

/// The memory a merge of shards totalling `bytes` of JSON needs at its peak: every shard's tree
/// (moved, not copied, into the merged one) and the merged text while it grows (its buffer doubles,
/// so up to three times its length at a reallocation). Measured 4.2 bytes per byte of shard (70 MB
/// of shards of `qkov scan` documents with their pairs as JSON, 298 MB at the peak; documents of
/// heads alone are trees of the same kind, numbers in objects and lists), counted 5. The tensors
/// are read a row at a time and not counted.
inline std::uint64_t merge_memory_needed(std::uint64_t bytes)
{
    return bytes * (io::json_tree_bytes_per_text_byte + 3);
}

/// The total size of the shard files; errors name a file that is not a regular file.
inline std::uint64_t shard_bytes(const std::vector<std::filesystem::path>& files)
{
    std::uint64_t total = 0;
    for (const auto& file : files) {
        require_shard_file(file);
        std::error_code ec;
        total += std::filesystem::file_size(file, ec);
    }
    return total;
}

/// Reads every shard, after checking that their merge fits in the memory this process may use
/// (io::memory_headroom): a merge that cannot fit is refused by name before any parse, instead of
/// running out of memory partway through the trees.
inline std::vector<scan_shard> read_scan_shards(const std::vector<std::filesystem::path>& files)
{
    const std::uint64_t bytes = shard_bytes(files), needed = merge_memory_needed(bytes);
    if (const auto headroom = io::memory_headroom(); headroom && needed > *headroom)
        throw scan_merge_error("qkov: merge-scans: the shards total " + io::megabytes(bytes) + "; joining them needs about " + io::megabytes(needed) +
                               ", more than this process may use (" + io::megabytes(*headroom) +
                               ": its memory limit, ulimit -v, or the memory the system has available): merge on a machine with more memory");
    std::vector<scan_shard> shards;
    try {
        for (const auto& file : files) shards.push_back(read_scan_shard(file));
    } catch (...) {
        // A tree's own destructor allocates; released here, a bad_alloc unwinds without one.
        for (auto& s : shards) io::release_json_tree(s.document);
        throw;
    }
    return shards;
}

namespace detail {

/// A shard with its layer range read and its sections checked for shape.
struct checked_shard {
    scan_shard* shard = nullptr;
    std::size_t first = 0, last = 0;
    composition_tensors_ref tensors;  ///< what its document says of its tensors
    std::size_t recomputed = 0;       ///< its pairs recomputed in float64 (composition.recomputed_in_float64)
};

inline std::size_t index_at(const nlohmann::json& j, const std::string& what, const std::string& file)
{
    if (!j.is_number_integer() || j.get<std::int64_t>() < 0) throw scan_merge_error("qkov: " + file + ": " + what + " is not a layer or head number (" + j.dump() + ")");
    return j.get<std::size_t>();
}

inline double number_at(const nlohmann::json& object, const char* key, const std::string& where, const std::string& file)
{
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number()) throw scan_merge_error("qkov: " + file + ": " + where + "." + key + " is not a number");
    return it->get<double>();
}

inline std::optional<double> optional_number_at(const nlohmann::json& object, const char* key, const std::string& where, const std::string& file)
{
    if (const auto it = object.find(key); it != object.end() && it->is_null()) return std::nullopt;
    return number_at(object, key, where, file);
}

/// [layer, head] of a head or a pair's end.
inline std::pair<std::size_t, std::size_t> head_id(const nlohmann::json& j, const std::string& what, const std::string& file)
{
    if (!j.is_array() || j.size() != 2) throw scan_merge_error("qkov: " + file + ": " + what + " is not [layer, head]");
    return {index_at(j[0], what, file), index_at(j[1], what, file)};
}

/// What a shard's `composition` says of its tensors. The file must be a plain name, beside the
/// document (a path from an untrusted document would read any file the merge may read).
inline composition_tensors_ref tensors_ref_of(const nlohmann::json& j, const std::string& file)
{
    namespace k = scan_json_keys;
    const auto c = j.find(k::composition);
    const std::string where = std::string(k::composition) + ".";
    if (c == j.end() || !c->is_object()) throw scan_merge_error("qkov: " + file + ": " + k::composition + " is not an object naming the pairs' tensors");
    composition_tensors_ref ref;
    for (auto [key, to] : {std::pair{k::tensors_file, &ref.file}, {k::tensors_sha256, &ref.sha256}}) {
        const auto it = c->find(key);
        if (it == c->end() || !it->is_string()) throw scan_merge_error("qkov: " + file + ": " + where + key + " is not a string");
        *to = it->get<std::string>();
    }
    if (ref.file.empty() || ref.file == "." || ref.file == ".." || ref.file.find_first_of(std::string("/\\\0", 3)) != std::string::npos)
        throw scan_merge_error("qkov: " + file + ": " + where + k::tensors_file + " " + nlohmann::json(ref.file).dump() +
                               " is not the name of a file beside the document");
    const auto pairs = c->find(k::pair_count);
    if (pairs == c->end() || !pairs->is_number_integer() || pairs->get<std::int64_t>() < 0) throw scan_merge_error("qkov: " + file + ": " + where + k::pair_count + " is not a count");
    ref.pairs = pairs->get<std::size_t>();
    const auto bound = c->find(k::largest_bound);
    if (bound == c->end() || !bound->is_number() || !(bound->get<double>() >= 0) || !std::isfinite(bound->get<double>()))
        throw scan_merge_error("qkov: " + file + ": " + where + k::largest_bound + " is not a finite non-negative number");
    ref.largest_bound = bound->get<double>();
    return ref;
}

/// The pairs a shard recomputed in float64 (its document's composition.recomputed_in_float64).
inline std::size_t recomputed_of(const nlohmann::json& j, const std::string& file)
{
    namespace k = scan_json_keys;
    const auto& c = j.at(k::composition);
    const auto it = c.find(k::recomputed_in_float64);
    if (it == c.end() || !it->is_number_integer() || it->get<std::int64_t>() < 0)
        throw scan_merge_error("qkov: " + file + ": " + k::composition + "." + k::recomputed_in_float64 + " is not a count");
    return it->get<std::size_t>();
}

inline checked_shard check_shard(scan_shard& s)
{
    namespace k = scan_json_keys;
    const auto& j = s.document;
    if (!j.is_object() || j.value(k::schema, std::string()) != schemas::scan)
        throw scan_merge_error("qkov: " + s.name + ": expected a document of schema " + schemas::scan + " (qkov scan --json)");
    for (const char* array : {k::heads, k::facts})
        if (!j.contains(array) || !j[array].is_array()) throw scan_merge_error("qkov: " + s.name + ": " + array + " is not a list");
    if (!j.contains(k::model) || !j[k::model].is_object()) throw scan_merge_error("qkov: " + s.name + ": " + k::model + " is not an object");
    const auto range = j.find(k::scanned_layers);
    if (range == j.end() || !range->is_array() || range->size() != 2) throw scan_merge_error("qkov: " + s.name + ": " + k::scanned_layers + " is not [first, last]");
    checked_shard c{&s, index_at((*range)[0], k::scanned_layers, s.name), index_at((*range)[1], k::scanned_layers, s.name), tensors_ref_of(j, s.name),
                    recomputed_of(j, s.name)};
    if (c.first > c.last) throw scan_merge_error("qkov: " + s.name + ": " + k::scanned_layers + " " + range->dump() + " run backwards");
    // The seed-head model's facts read both of its layers at once; no shard can state them.
    for (const auto& f : j[k::facts])
        if (const auto claim = f.value(k::claim, std::string()); !is_model_fact(claim))
            throw scan_merge_error("qkov: " + s.name + " states claim " + claim +
                                   ", which only a scan of the whole seed-head model checks; merge-scans states B1, B4, B5 and K2 again from the heads");
    return c;
}

/// Where two values first differ, as "path: A in a, B in b" (each value cut to a readable length).
inline std::string first_difference(const nlohmann::json& a, const std::string& a_name, const nlohmann::json& b, const std::string& b_name,
                                    const std::string& section)
{
    const auto patch = nlohmann::json::diff(a, b);
    const nlohmann::json::json_pointer at(patch.at(0).at("path").get<std::string>());
    const std::string a_text = a.contains(at) ? a.at(at).dump() : "absent", b_text = b.contains(at) ? b.at(at).dump() : "absent";
    // Long values are cut to a window around their first differing character, so the two shown
    // texts differ (a cut at a fixed length would print the same prefix twice).
    std::size_t first = 0;
    while (first < a_text.size() && first < b_text.size() && a_text[first] == b_text[first]) ++first;
    const std::size_t from = first > 30 ? first - 30 : 0;
    const auto shown = [&](const std::string& text) {
        if (text.size() <= 80) return text;
        std::string out;  // appended piece by piece: g++ 12's -Wrestrict misfires on "..." + std::string&&
        if (from > 0) out.append("...");
        out.append(text, std::min(from, text.size()), 77);
        if (from + 77 < text.size()) out.append("...");
        return out;
    };
    return section + at.to_string() + " is " + shown(a_text) + " in " + a_name + ", " + shown(b_text) + " in " + b_name;
}

/// What the merged document has seen so far: each head at most once.
struct merge_census {
    std::size_t heads_per_layer = 0;
    std::set<std::pair<std::size_t, std::size_t>> heads;
};

/// Heads of the shard lie in its layers and the model's heads, once each across all shards; labels
/// are the vocabulary's: a document edited by hand, or written by another tool, would otherwise
/// merge into a repeated, misplaced or meaningless entry.
inline void check_contents(const checked_shard& c, merge_census& census)
{
    namespace k = scan_json_keys;
    const auto& j = c.shard->document;
    const std::string& file = c.shard->name;
    const auto outside = [&](std::size_t layer) { return layer < c.first || layer > c.last; };
    const auto layers = " its layers " + std::to_string(c.first) + "-" + std::to_string(c.last);
    for (std::size_t i = 0; i < j[k::heads].size(); ++i) {
        const auto& h = j[k::heads][i];
        const std::string where = std::string(k::heads) + "[" + std::to_string(i) + "]";
        if (!h.is_object() || !h.contains(k::layer) || !h.contains(k::head)) throw scan_merge_error("qkov: " + file + ": " + where + " names no head");
        const std::size_t layer = index_at(h[k::layer], where, file), head = index_at(h[k::head], where, file);
        const std::string name = std::to_string(layer) + "." + std::to_string(head);
        if (outside(layer)) throw scan_merge_error("qkov: " + file + ": " + where + " is head " + name + ", outside" + layers);
        if (head >= census.heads_per_layer)
            throw scan_merge_error("qkov: " + file + ": " + where + " is head " + name + ", but the model has " + std::to_string(census.heads_per_layer) + " heads per layer");
        if (!census.heads.emplace(layer, head).second) throw scan_merge_error("qkov: " + file + ": " + where + " lists head " + name + " a second time");
        const auto listed = h.find(k::labels);
        if (listed == h.end() || !listed->is_array()) throw scan_merge_error("qkov: " + file + ": " + where + " has no list of labels");
        for (const auto& label : *listed)
            if (!label.is_string() || !labels::parse_label(label.get<std::string>()))
                throw scan_merge_error("qkov: " + file + ": " + where + " has the label " + label.dump() + ", which is not in qkov's vocabulary");
    }
}

inline head_fact_inputs fact_inputs_of(const nlohmann::json& h, const std::string& where, const std::string& file)
{
    namespace k = scan_json_keys;
    const auto residual = h.find(k::reconstruction_residual);
    if (residual == h.end() || !residual->is_object()) throw scan_merge_error("qkov: " + file + ": " + where + "." + k::reconstruction_residual + " is not an object");
    return {number_at(*residual, k::qk, where + "." + k::reconstruction_residual, file),
            optional_number_at(h, k::cond_q, where, file),
            optional_number_at(h, k::cond_k, where, file),
            number_at(h, k::ov_identity_distance, where, file),
            number_at(h, k::ov_identity_floor, where, file),
            optional_number_at(h, k::absorbed_form_gap, where, file)};
}

/// "l.h -> l.h" for a pair.
inline std::string pair_name(std::size_t sl, std::size_t sh, std::size_t tl, std::size_t th)
{
    return std::to_string(sl) + "." + std::to_string(sh) + " -> " + std::to_string(tl) + "." + std::to_string(th);
}

/// Each shard's tensors, opened: the file its document names, at the model's shape, its spectra
/// of the model's head dimension. Any failure is named with the shard.
inline std::vector<composition_tensors_reader> open_shard_tensors(const std::vector<checked_shard>& order, std::size_t layers, std::size_t heads,
                                                                  std::size_t head_dim)
{
    std::vector<composition_tensors_reader> readers;
    for (const auto& c : order) {
        try {
            readers.emplace_back(c.shard->directory / c.tensors.file, c.tensors.sha256, layers, heads);
        } catch (const std::exception& e) {  // composition_tensors_error, or io::model_file_error from the safetensors reader
            throw scan_merge_error("qkov: " + c.shard->name + ": its composition tensors: " + e.what());
        }
        if (readers.back().shape().spectrum != head_dim)
            throw scan_merge_error("qkov: " + c.shard->name + ": its T3 spectra have " + std::to_string(readers.back().shape().spectrum) +
                                   " values, not the model's head dimension " + std::to_string(head_dim));
    }
    return readers;
}

/// Reads row (layer, head) of a shard's tensor whole and checks it value by value: a pair wherever
/// one belongs (its target in the shard's layers, its source in an earlier layer), finite, and
/// the NaN of absence everywhere else. Returns the pairs the row holds. The values copied are
/// the values checked: one read serves both.
inline std::size_t read_checked_row(const composition_tensors_reader& r, const checked_shard& c, std::size_t tensor, std::size_t layer, std::size_t head,
                                    std::vector<double>& row)
{
    const std::string& file = c.shard->name;
    row.resize(r.shape().row_values(tensor));
    try {
        r.read(tensor, layer, head, 0, r.shape().layers - 1, row);
    } catch (const std::exception& e) {  // io::model_file_error: the file shrank since it was opened
        throw scan_merge_error("qkov: " + file + ": its composition tensors: " + e.what());
    }
    const std::size_t heads = r.shape().heads, targets = r.shape().layers * heads, per_target = row.size() / targets;
    const char* name = tensor < 3 ? composition_score_tensors[tensor] : t3_tensor;
    std::size_t pairs = 0;
    for (std::size_t t = 0; t < targets; ++t) {
        const std::size_t tl = t / heads, th = t % heads;
        const bool belongs = tl >= c.first && tl <= c.last && layer < tl;
        const auto values = std::span<const double>(row).subspan(t * per_target, per_target);
        if (!belongs && !std::all_of(values.begin(), values.end(), marks_absence))
            throw scan_merge_error("qkov: " + file + ": its tensor " + name + " holds the pair " + pair_name(layer, head, tl, th) +
                                   (layer >= tl ? ": composition runs from an earlier layer to a later one"
                                                : ", outside its layers " + std::to_string(c.first) + "-" + std::to_string(c.last) +
                                                      " (a pair belongs to the shard of its later head)"));
        if (belongs && !std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); }))
            throw scan_merge_error("qkov: " + file + ": its tensor " + name + " lacks the pair " + pair_name(layer, head, tl, th) +
                                   " (NaN or infinite), which a scan of its layers holds");
        pairs += belongs;
    }
    return pairs;
}

/// merge_scans' work on shards it may empty: their lists move into the merged document.
inline nlohmann::json merge_moving(std::vector<scan_shard>& shards, const std::filesystem::path& tensors)
{
    namespace k = scan_json_keys;
    if (shards.empty()) throw scan_merge_error("qkov: no scans to merge");
    std::vector<checked_shard> order;
    for (auto& s : shards) order.push_back(check_shard(s));
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

    const auto& base = *order.front().shard;
    for (const auto& c : order) {
        const auto& s = *c.shard;
        if (s.document[k::model] != base.document[k::model])
            throw scan_merge_error("qkov: " + s.name + " and " + base.name + " are scans of different models: " +
                                   first_difference(base.document[k::model], base.name, s.document[k::model], s.name, std::string(k::model)));
        for (const char* section : {k::conventions, k::thresholds, k::proxy, k::input, k::model_fingerprint})
            if (s.document.value(section, nlohmann::json()) != base.document.value(section, nlohmann::json()))
                throw scan_merge_error("qkov: " + s.name + " and " + base.name + " were scanned with different thresholds or options: " +
                                       first_difference(base.document.value(section, nlohmann::json()), base.name,
                                                                s.document.value(section, nlohmann::json()), s.name, section));
    }

    const auto& layer_count = base.document[k::model].value(k::model_layers, nlohmann::json());
    const std::size_t layers = index_at(layer_count, std::string(k::model) + "." + k::model_layers, base.name);
    if (layers == 0) throw scan_merge_error("qkov: " + base.name + ": the model has no layers");
    const auto span = [](std::size_t a, std::size_t b) { return a == b ? "layer " + std::to_string(a) : "layers " + std::to_string(a) + "-" + std::to_string(b); };
    std::size_t next = 0;  // the first layer no shard before this one holds
    for (std::size_t i = 0; i < order.size(); ++i) {
        const auto& c = order[i];
        if (c.last >= layers)
            throw scan_merge_error("qkov: " + c.shard->name + " holds " + span(c.first, c.last) + ", beyond the model's layers 0-" + std::to_string(layers - 1));
        if (i > 0 && c.first < next)
            throw scan_merge_error("qkov: " + order[i - 1].shard->name + " (" + span(order[i - 1].first, order[i - 1].last) + ") and " + c.shard->name + " (" +
                                   span(c.first, c.last) + ") overlap at " + span(c.first, std::min(c.last, next - 1)) +
                                   ": each layer must be in exactly one shard");
        if (c.first > next)
            throw scan_merge_error("qkov: no shard holds " + span(next, c.first - 1) + " of the model's layers 0-" + std::to_string(layers - 1));
        next = c.last + 1;
    }
    if (next < layers) throw scan_merge_error("qkov: no shard holds " + span(next, layers - 1) + " of the model's layers 0-" + std::to_string(layers - 1));

    merge_census census;
    census.heads_per_layer = index_at(base.document[k::model].value(k::model_heads, nlohmann::json()), std::string(k::model) + "." + k::model_heads, base.name);

    // The base shard's sections besides its lists (model, conventions, thresholds, ...), which every
    // shard holds alike; the lists are every shard's, moved in below.
    nlohmann::json merged = nlohmann::json::object();
    for (const auto& [key, value] : base.document.items())
        if (key != k::heads && key != k::composition && key != k::circuits) merged[key] = value;
    merged[k::scanned_layers] = {0, layers - 1};
    auto& heads = merged[k::heads] = nlohmann::json::array();
    auto& circuits = merged[k::circuits] = nlohmann::json::array();
    std::vector<head_fact_inputs> fact_inputs;
    std::vector<std::pair<std::size_t, std::size_t>> ids;
    for (const auto& c : order) {
        check_contents(c, census);
        auto& j = c.shard->document;
        for (std::size_t i = 0; i < j[k::heads].size(); ++i) {
            auto& h = j[k::heads][i];
            const std::string where = std::string(k::heads) + "[" + std::to_string(i) + "]";
            fact_inputs.push_back(fact_inputs_of(h, where, c.shard->name));
            ids.emplace_back(h[k::layer].get<std::size_t>(), h[k::head].get<std::size_t>());
            heads.push_back(std::move(h));
        }
        // A shard's circuits are those of its heads (their later side is in its layers), in its heads' order.
        const auto listed = j.find(k::circuits);
        if (listed == j.end() || !listed->is_array()) throw scan_merge_error("qkov: " + c.shard->name + ": \"" + k::circuits + "\" is not a list");
        for (auto& circuit : *listed) circuits.push_back(std::move(circuit));
    }
    // Every head of the model, each once (checked above): a shard without heads, or one that left
    // some out, does not make a whole scan.
    if (census.heads_per_layer == 0 || layers > census.heads.size() / census.heads_per_layer || census.heads.size() != layers * census.heads_per_layer)
        throw scan_merge_error("qkov: the shards hold " + std::to_string(census.heads.size()) + " heads, but the model has " + std::to_string(layers) + " layers x " +
                               std::to_string(census.heads_per_layer) + " heads: a shard lacks some of its heads");
    merged[k::facts] = facts_json(model_facts(fact_inputs));

    const auto head_dim = base.document[k::model].value(k::model_head_dim, nlohmann::json());
    const auto readers = open_shard_tensors(order, layers, census.heads_per_layer, index_at(head_dim, std::string(k::model) + "." + k::model_head_dim, base.name));
    const composition_tensors_shape shape = readers.front().shape();
    // Row (source layer, source head) of tensor `tensor`: each shard's row read and checked whole,
    // its target layers copied. One row per shard is held at a time.
    std::vector<std::size_t> pairs(order.size(), 0);
    std::vector<double> shard_row;
    const auto row = [&](std::size_t tensor, std::size_t layer, std::size_t head, std::span<double> out) {
        const std::size_t per_layer = shape.row_values(tensor) / layers;
        for (std::size_t i = 0; i < order.size(); ++i) {
            const std::size_t held = read_checked_row(readers[i], order[i], tensor, layer, head, shard_row);
            if (tensor == 0) pairs[i] += held;
            std::copy_n(shard_row.begin() + static_cast<std::ptrdiff_t>(order[i].first * per_layer), (order[i].last - order[i].first + 1) * per_layer,
                        out.begin() + static_cast<std::ptrdiff_t>(order[i].first * per_layer));
        }
    };
    composition_tensors_ref written{tensors.filename().string(), "", 0, 0.0};
    std::size_t recomputed = 0;
    for (const auto& o : order) written.largest_bound = std::max(written.largest_bound, o.tensors.largest_bound), recomputed += o.recomputed;
    io::write_file_atomically_in_pieces(tensors, [&](const auto& put) {
        written.sha256 = put_composition_tensors(put, shape, row);
        // Thrown here, the merged file is not written.
        for (std::size_t i = 0; i < order.size(); ++i) {
            if (pairs[i] != order[i].tensors.pairs)
                throw scan_merge_error("qkov: " + order[i].shard->name + ": its document says " + std::to_string(order[i].tensors.pairs) +
                                       " composition pairs, its tensors hold " + std::to_string(pairs[i]));
            written.pairs += pairs[i];
        }
    });
    merged[k::composition] = composition_json(written, recomputed);
    // Each head's strongest targets among its own pairs, in the whole scan's order (target layer,
    // then target head), one head's row at a time, read from the merged file just written (hashed
    // as it was written: not read whole again for its checksum).
    const composition_tensors_reader whole(tensors, composition_tensors_reader::written_here{}, layers, census.heads_per_layer);
    nlohmann::json edges = nlohmann::json::array();
    std::vector<double> scores[3];
    for (const auto& [layer, head] : ids) {
        std::vector<composition_score> mine;
        for (std::size_t t = 0; t < 3; ++t) scores[t].resize(shape.row_values(t)), whole.read(t, layer, head, 0, layers - 1, scores[t]);
        for (std::size_t target = (layer + 1) * shape.heads; target < shape.row_values(0); ++target)
            mine.push_back({layer, head, target / shape.heads, target % shape.heads, scores[0][target], scores[1][target], scores[2][target], 0, 0, 0, nullptr});
        edges.push_back(strongest_edges_entry(layer, head, mine));
    }
    merged[k::strongest_edges] = std::move(edges);
    return merged;
}

} // namespace detail

/// The whole scan's document from shards whose layer ranges partition the model's layers, each a
/// scan of the same model (its summary and path) with the same thresholds and options; any other
/// set of shards is a scan_merge_error naming the shard and the difference.
///
/// The merged pairs' tensors are written to `tensors` (whole or not at all), which the document
/// names by its file name: the caller writes the document beside it.
///
/// The shards' heads and circuits are moved into the merged document, not copied: a copy held
/// every shard's tree twice, and a std::bad_alloc inside one (a tree's copy constructor) unwound
/// into a destructor that allocates and ended the process. On any exception the trees are released
/// without allocating (io/json_release.hpp) before it goes on.
inline nlohmann::json merge_scans(std::vector<scan_shard> shards, const std::filesystem::path& tensors)
{
    nlohmann::json merged;
    try {
        merged = detail::merge_moving(shards, tensors);
    } catch (...) {
        io::release_json_tree(merged);
        for (auto& s : shards) io::release_json_tree(s.document);
        throw;
    }
    return merged;
}

} // namespace qkov::scan
