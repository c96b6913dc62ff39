// The weight labels of `qkov scan --json`, read for the comparison with measured behaviour
// (weights_vs_behaviour.hpp): per head its labels, the labels whose certificate holds, and the
// predictions the labels were read from (attention by offset and to BOS from the mean-field
// prediction, the per-token copying shares), each absent when the scan has none.
//
// A scan is compared only with the model it is of: its "model" object must state the same family
// and geometry (layers, heads, kv_heads, hidden_size, head_dim, vocab_size) as the model detected.
// The family, not the architecture string, is compared, because one model read from a Hugging Face
// directory, a GGUF file and a llama2.c file names its architecture three ways ("LlamaForCausalLM",
// "llama", "llama2.c"). Within one family and shape, the scan's weight fingerprint (a few of the
// weights it read, model/weight_fingerprint.hpp) must match the model's within the quantisation of
// any container: the scan of another trained model of the same shape is refused, not compared (a
// scan written before the fingerprint existed is compared by family and shape alone). A head
// listed twice is refused: which of its two label sets would count?
//
// The file is streamed: only the model, its fingerprint, the input and each head's name, labels and
// predictions become a tree (read_for_comparison), so a scan of any size is read in the memory of
// those. The document is untrusted: nothing is sized from its numbers (a head is remembered by its name,
// so layers x heads that wrap 2^64 allocate nothing), it nests at most 64 levels, no object holds a
// key twice, every label is one of the vocabulary's (labels/vocabulary.hpp), every certified label
// is one of the head's labels, and every prediction is a probability in [0, 1].
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/forward/head_scores.hpp"
#include "qkov/io/model_config.hpp"
#include "qkov/io/json_release.hpp"
#include "qkov/io/untrusted_json_kept.hpp"
#include "qkov/labels/vocabulary.hpp"
#include "qkov/model/head_name.hpp"
#include "qkov/model/weight_fingerprint.hpp"
#include "qkov/scan/scan_json_keys.hpp"

namespace qkov::detect {

/// What is wrong with a scan's JSON, or why it cannot be compared with this model.
struct scan_file_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// What a scan and a detection must agree on to be of the same model.
struct model_geometry {
    std::string family, architecture;
    std::size_t layers = 0, heads = 0, kv_heads = 0, hidden_size = 0, head_dim = 0, vocab_size = 0;
};

inline model_geometry geometry_of(const io::model_config& c)
{
    return {io::model_family_name(c.family), c.architecture, c.layers, c.heads, c.kv_heads, c.hidden_size, c.head_dim, c.vocab_size};
}

/// What the weights predicted for one head, where the scan says.
struct weight_predictions {
    std::optional<std::array<double, forward::largest_offset + 1>> attention_by_offset;  ///< mean_field.attention_by_offset
    std::optional<double> bos;                                                           ///< mean_field.bos
    std::optional<double> previous_token;                                                ///< mean_field.previous_token
    std::optional<double> top1_share, bottom10_share;                                    ///< token_copying
};

/// One head's labels as the scan gave them.
struct weight_labels {
    std::size_t layer = 0, head = 0;
    std::vector<std::string> labels;
    std::vector<std::string> certified;  ///< the labels whose certificate holds
    weight_predictions predicted;

    [[nodiscard]] bool has(const std::string& label) const
    {
        for (const auto& l : labels)
            if (l == label) return true;
        return false;
    }
    [[nodiscard]] bool is_certified(const std::string& label) const
    {
        for (const auto& l : certified)
            if (l == label) return true;
        return false;
    }
};

struct scan_labels {
    std::string file;
    model_geometry model;
    std::vector<weight_labels> heads;
    std::optional<model::weight_fingerprint> fingerprint;  ///< absent in scans written before it existed
    std::string input;  ///< the input the labels predict behaviour on (scan_input)
};

/// The input a scan document says its labels predict behaviour on (random tokens when it says none:
/// a document from before the field; input_pairing.hpp pairs it with a detection).
inline std::string scan_input(const nlohmann::json& document, const std::string& file)
{
    namespace k = scan::scan_json_keys;
    if (!document.is_object() || !document.contains(k::input)) return k::input_random_tokens;
    if (!document[k::input].is_string()) throw scan_file_error("qkov: " + file + ": \"input\" is not a string");
    return document[k::input].get<std::string>();
}

namespace detail {

inline std::size_t scan_index(const nlohmann::json& j, const char* key, const std::string& file, const std::string& where)
{
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer() || it->get<std::int64_t>() < 0)
        throw scan_file_error("qkov: " + file + ": " + where + " lacks a non-negative integer \"" + key + "\" (is it the JSON of qkov scan --json?)");
    return it->get<std::size_t>();
}

inline std::vector<std::string> scan_strings(const nlohmann::json& h, const char* key, bool required, const std::string& file, const std::string& where)
{
    std::vector<std::string> out;
    const auto it = h.find(key);
    if (it == h.end() || it->is_null()) {
        if (required) throw scan_file_error("qkov: " + file + ": " + where + " lacks a \"" + key + "\" array");
        return out;
    }
    if (!it->is_array()) throw scan_file_error("qkov: " + file + ": " + where + "'s \"" + key + "\" is not an array");
    for (const auto& l : *it) {
        if (!l.is_string()) throw scan_file_error("qkov: " + file + ": " + where + " has a \"" + key + "\" entry that is not a string");
        out.push_back(l.get<std::string>());
    }
    return out;
}

/// A probability the scan predicted: a number in [0, 1]; anything else is an error naming it.
inline double scan_probability(const nlohmann::json& v, const std::string& file, const std::string& what)
{
    if (!v.is_number()) throw scan_file_error("qkov: " + file + ": " + what + " is not a number");
    const double x = v.get<double>();
    if (!(x >= 0 && x <= 1)) throw scan_file_error("qkov: " + file + ": " + what + " is " + v.dump() + ", not a probability in [0, 1]");
    return x;
}

/// j[key] as a probability, unset when absent or null; anything else is an error.
inline std::optional<double> scan_number(const nlohmann::json& j, const char* key, const std::string& file, const std::string& where)
{
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return std::nullopt;
    return scan_probability(*it, file, where + "'s \"" + key + "\"");
}

inline weight_predictions scan_predictions(const nlohmann::json& h, const std::string& file, const std::string& where)
{
    namespace k = scan::scan_json_keys;
    weight_predictions p;
    if (const auto m = h.find(k::mean_field); m != h.end() && m->is_object()) {
        if (const auto a = m->find(k::by_offset); a != m->end() && !a->is_null()) {
            if (!a->is_array() || a->size() < forward::largest_offset + 1)
                throw scan_file_error("qkov: " + file + ": " + where + "'s mean_field.attention_by_offset is not an array of offsets 0 .. " +
                                      std::to_string(forward::largest_offset));
            std::array<double, forward::largest_offset + 1> by_offset{};
            for (std::size_t k = 0; k < by_offset.size(); ++k)
                by_offset[k] = scan_probability((*a)[k], file, where + "'s mean_field.attention_by_offset[" + std::to_string(k) + "]");
            p.attention_by_offset = by_offset;
        }
        p.bos = scan_number(*m, k::bos, file, where + ".mean_field");
        p.previous_token = scan_number(*m, k::previous_token, file, where + ".mean_field");
    }
    if (const auto t = h.find(k::token_copying); t != h.end() && t->is_object()) {
        p.top1_share = scan_number(*t, k::top1_share, file, where + ".token_copying");
        p.bottom10_share = scan_number(*t, k::bottom10_share, file, where + ".token_copying");
    }
    return p;
}

/// The document's model_fingerprint, checked for shape (at most 2 layers x 4 x 32 numbers).
inline std::optional<model::weight_fingerprint> scan_fingerprint(const nlohmann::json& j, const std::string& file)
{
    const auto it = j.find(scan::scan_json_keys::model_fingerprint);
    if (it == j.end()) return std::nullopt;
    const auto bad = [&](const std::string& what) { return scan_file_error("qkov: " + file + ": model_fingerprint " + what); };
    if (!it->is_object()) throw bad("is not an object");
    model::weight_fingerprint f;
    f.rows = scan_index(*it, "rows", file, "model_fingerprint"), f.columns = scan_index(*it, "columns", file, "model_fingerprint");
    const auto layers = it->find("layers"), values = it->find("values");
    if (layers == it->end() || !layers->is_array() || layers->empty() || layers->size() > 2) throw bad("lacks its one or two layers");
    for (const auto& l : *layers) {
        if (!l.is_number_integer() || l.get<std::int64_t>() < 0) throw bad("has a layer that is not a layer number");
        f.layers.push_back(l.get<std::size_t>());
    }
    if (f.rows == 0 || f.rows > model::fingerprint_rows || f.columns == 0 || f.columns > model::fingerprint_columns)
        throw bad("has " + std::to_string(f.rows) + " x " + std::to_string(f.columns) + " entries per layer, not at most " +
                  std::to_string(model::fingerprint_rows) + " x " + std::to_string(model::fingerprint_columns));
    if (values == it->end() || !values->is_array() || values->size() != f.layers.size() * f.rows * f.columns)
        throw bad("does not hold layers x rows x columns values");
    for (const auto& v : *values) {
        if (!v.is_number() || !std::isfinite(v.get<double>())) throw bad("has a value that is not a finite number");
        f.values.push_back(v.get<double>());
    }
    return f;
}

} // namespace detail

/// The scan's document, already parsed; `file` names it in errors.
inline scan_labels parse_scan_labels(const nlohmann::json& j, const std::string& file)
{
    namespace k = scan::scan_json_keys;
    if (!j.is_object() || !j.contains(k::model) || !j[k::model].is_object() || !j.contains(k::heads) || !j[k::heads].is_array())
        throw scan_file_error("qkov: " + file + ": expected an object with \"model\" and \"heads\", as qkov scan --json writes");
    const auto& m = j[k::model];
    scan_labels out;
    out.file = file;
    const std::string model_where = "\"model\"";
    if (!m.contains("family") || !m["family"].is_string())
        throw scan_file_error("qkov: " + file + ": \"model\" lacks the string \"family\" (is it the JSON of qkov scan --json?)");
    out.model.family = m["family"].get<std::string>(), out.model.architecture = m.value("architecture", std::string());
    out.model.layers = detail::scan_index(m, "layers", file, model_where), out.model.heads = detail::scan_index(m, "heads", file, model_where);
    out.model.kv_heads = detail::scan_index(m, "kv_heads", file, model_where);
    out.model.hidden_size = detail::scan_index(m, "hidden_size", file, model_where);
    out.model.head_dim = detail::scan_index(m, "head_dim", file, model_where);
    out.model.vocab_size = detail::scan_index(m, "vocab_size", file, model_where);
    out.fingerprint = detail::scan_fingerprint(j, file);
    out.input = scan_input(j, file);
    std::set<std::pair<std::size_t, std::size_t>> seen;  // by name: nothing sized from the document's numbers
    for (std::size_t i = 0; i < j[k::heads].size(); ++i) {
        const auto& h = j[k::heads][i];
        const std::string where = "heads[" + std::to_string(i) + "]";
        if (!h.is_object()) throw scan_file_error("qkov: " + file + ": " + where + " is not an object");
        weight_labels w{detail::scan_index(h, k::layer, file, where), detail::scan_index(h, k::head, file, where), {}, {}, {}};
        const std::string name = model::head_name(w.layer, w.head);
        if (w.layer >= out.model.layers || w.head >= out.model.heads)
            throw scan_file_error("qkov: " + file + ": " + where + " names head " + name + ", outside the model");
        if (!seen.emplace(w.layer, w.head).second) throw scan_file_error("qkov: " + file + ": " + where + " lists head " + name + " a second time");
        w.labels = detail::scan_strings(h, k::labels, true, file, where);
        w.certified = detail::scan_strings(h, k::certified, false, file, where);
        for (const auto& l : w.labels)
            if (!labels::parse_label(l)) throw scan_file_error("qkov: " + file + ": " + where + " has the label '" + l + "', which is not in qkov's vocabulary");
        for (const auto& l : w.certified)
            if (!w.has(l)) throw scan_file_error("qkov: " + file + ": " + where + " certifies '" + l + "', which is not one of its labels");
        w.predicted = detail::scan_predictions(h, file, where);
        out.heads.push_back(std::move(w));
    }
    return out;
}

/// Whether the comparison reads `key`, `depth` levels down inside the document's key `top`
/// (io::json_key_filter): the model, its fingerprint, the input and each head's name, labels and
/// predictions. Everything else, the composition pairs, the strongest edges, the circuits and the
/// heads' other evidence, is dropped as it is read.
inline bool read_for_comparison(std::size_t depth, const std::string& key, const std::string& top)
{
    namespace k = scan::scan_json_keys;
    if (depth == 1) return key == k::model || key == k::heads || key == k::model_fingerprint || key == k::input;
    if (depth == 3 && top == k::heads)  // a head's own keys
        return key == k::layer || key == k::head || key == k::labels || key == k::certified || key == k::mean_field || key == k::token_copying;
    return true;
}

/// Reads `file` (the JSON of qkov scan --json); errors name the file and what is wrong. The file
/// streams through the parser and only what read_for_comparison keeps becomes a tree, so any size
/// of scan is read in the memory of its heads' labels and predictions (a few MB for every head of
/// a Llama-3-8B-shaped scan).
inline scan_labels read_scan_labels(const std::filesystem::path& file)
{
    namespace fs = std::filesystem;
    const std::string name = file.string();
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) throw scan_file_error("qkov: --scan " + name + ": not a regular file");
    std::ifstream in(file, std::ios::binary);
    if (!in) throw scan_file_error("qkov: --scan " + name + ": cannot be read");
    // A read error partway looks like the text's end to the parser: "not valid JSON".
    auto parsed = io::parse_untrusted_json_kept(in, 64, read_for_comparison);  // a scan document nests 6 levels
    if (const auto* problem = std::get_if<std::string>(&parsed)) throw scan_file_error("qkov: --scan " + name + ": " + *problem);
    nlohmann::json document = std::get<nlohmann::json>(std::move(parsed));
    // Released without allocating however this ends (json_release.hpp): a bad_alloc while the
    // labels are read would otherwise unwind into the tree's allocating destructor.
    const io::json_tree_release release(document);
    return parse_scan_labels(document, "--scan " + name);
}

/// Throws scan_file_error naming every way the scan's model differs from `model`, whose weight
/// fingerprint is `fingerprint` (compared when the scan has one).
inline void require_scan_of(const scan_labels& scan, const model_geometry& model, const model::weight_fingerprint& fingerprint)
{
    std::string differences;
    const auto differ = [&differences](const char* what, const std::string& in_scan, const std::string& in_model) {
        if (in_scan == in_model) return;
        differences += std::string(differences.empty() ? "" : ", ") + what + " " + in_scan + " (this model " + in_model + ")";
    };
    const auto& s = scan.model;
    if (s.family != model.family)
        differ("family", s.family + " [" + s.architecture + "]", model.family + " [" + model.architecture + "]");
    if (s.layers != model.layers || s.heads != model.heads)
        differ("layers x heads", std::to_string(s.layers) + " x " + std::to_string(s.heads), std::to_string(model.layers) + " x " + std::to_string(model.heads));
    differ("kv_heads", std::to_string(s.kv_heads), std::to_string(model.kv_heads));
    differ("hidden_size", std::to_string(s.hidden_size), std::to_string(model.hidden_size));
    differ("head_dim", std::to_string(s.head_dim), std::to_string(model.head_dim));
    differ("vocab_size", std::to_string(s.vocab_size), std::to_string(model.vocab_size));
    if (!differences.empty()) throw scan_file_error("qkov: " + scan.file + ": the scan is of another model: " + differences);
    if (scan.fingerprint)
        if (const auto weights = model::fingerprint_difference(*scan.fingerprint, fingerprint))
            throw scan_file_error("qkov: " + scan.file + ": the scan is of another model of the same family and shape: its weights differ (" + *weights + ")");
}

} // namespace qkov::detect
