// What the shards of one scan share, computed once (`qkov scan --prepare-shards`) and read by each
// shard (`qkov scan --layers A-B --shared DIR`, docs/cluster.md). Without it a shard starting at
// layer A runs the model's forward pass through the A layers before it and through its own, and
// reads the whole vocabulary for W_E^T W_U: the same numbers in every shard (8 shards of a 32-layer
// model ran the pass over 154 + 32 layers where the whole scan runs 32). With it the pass runs once,
// in the preparation, and no shard runs any of it.
//
// A directory:
//   shard-inputs.json       the manifest, written last: the model's and the options' identity, and
//                           each file below with its SHA-256
//   common.safetensors      token_circuit [D, D] (W_E^T W_U), mean_embedding [D],
//                           mean_unembedding [D] (token_side.hpp); absent without an unembedding
//   layer-L.safetensors     what the pass gives layer L (proxy_pass.hpp, scan_model.hpp's
//                           model_evidence): proxy [N + 1, D], the proxy sequence's normed input;
//                           readout [T, D], the sampled tokens' normed inputs in their random
//                           context; calibration [C, D], the calibration text's, when there is one;
//                           residual_scale [1], the residual's mean size at the layer's input
//   circuits-A.safetensors  for a shard starting at layer A, with the circuit search: what layers
//                           0 .. A-1 write (offset_writes.hpp): writes.<k> [S, D] for k = 1 .. W,
//                           writes.heads [n, 3] (layer, head, offsets) and writes.attention [sum]
// All float64, the values the shard would compute itself, so a shard that reads them writes the
// document it writes without them, to the byte (unit.scan checks it).
//
// What a shard checks before it trusts a file: the manifest's identity equals its own (the model's
// shape, summary, BOS, norm and epsilon, its weight fingerprint to the bit, the mean of its
// embedding's rows to the bit, every threshold, the circuit search, the calibration's token ids),
// the file is a regular file with the SHA-256 the manifest names, holds exactly the tensors of the
// shapes the shard's own pass and search have, every value finite. What it does not check: that the
// layers between the first and the last were the same weights (the fingerprint samples layer 0 and
// the last: a model file changed in its middle layers is not caught), and that the preparation ran
// the same qkov build with the same BLAS library on the same kind of CPU (another build or BLAS
// kernel may round differently: the shard is then still a valid scan, not the same bits); a file
// replaced between its checksum and its reading is not caught either (composition_tensors.hpp's
// limit too).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/io/atomic_file.hpp"
#include "qkov/io/document_schemas.hpp"
#include "qkov/io/file_sha256.hpp"
#include "qkov/io/plain_file.hpp"
#include "qkov/io/safetensors.hpp"
#include "qkov/io/safetensors_writer.hpp"
#include "qkov/io/sha256.hpp"
#include "qkov/io/tensor_block.hpp"
#include "qkov/io/untrusted_json.hpp"
#include "qkov/model/model_fingerprint.hpp"
#include "qkov/model/model_summary.hpp"
#include "qkov/scan/offset_writes.hpp"
#include "qkov/scan/scan_settings_json.hpp"
#include "qkov/scan/scan_options.hpp"
#include "qkov/scan/token_side.hpp"

namespace qkov::scan {

inline constexpr const char* shard_inputs_manifest = "shard-inputs.json";
/// The manifest's largest size: its identity and one line per layer, far below this.
inline constexpr std::size_t shard_inputs_manifest_limit = 16u << 20;

/// A shard's inputs that cannot be used: absent, of another model or options, or not what was written.
struct shard_inputs_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// What the shared numbers depend on: the model (shape, its summary and the settings of its pass,
/// exact weight fingerprint, the mean embedding row) and the options the pass and the circuit
/// writes read. Equal identities give equal numbers when the same qkov build and BLAS library
/// compute them (header comment).
inline nlohmann::json shard_inputs_identity(const model::attention_model& m, const scan_options& o, const vector& mean_embedding)
{
    const auto& c = m.config();
    const auto f = model::fingerprint_of(m);
    io::sha256 mean;
    mean.update(mean_embedding.data(), mean_embedding.size() * sizeof(double));
    io::sha256 calibration;
    for (const auto& sequence : o.calibration) {
        for (const std::size_t id : sequence) calibration.update(std::to_string(id) + " ");
        calibration.update("\n");
    }
    return {{"model",
             {{"layers", c.layers},
              {"heads", c.heads},
              {"hidden_size", c.hidden_size},
              {"vocabulary", c.vocab_size},
              {"summary", model::model_summary(m)},
              {"bos_token_id", c.bos_token_id ? nlohmann::json(*c.bos_token_id) : nlohmann::json()},
              {"norm", c.norm == io::norm_kind::layer_norm ? "layer_norm" : "rms_norm"},
              {"norm_eps", c.norm_eps},
              {"fingerprint", detail::fingerprint_json(f)},
              {"mean_embedding_sha256", mean.hex()}}},
            {"options",
             {{"thresholds", detail::label_thresholds_json(o.thresholds)},
              {"search_circuits", o.search_circuits},
              {"calibration_sha256", o.calibration.empty() ? std::string() : calibration.hex()}}}};
}

/// One float64 tensor to write from memory the caller holds.
struct shard_tensor {
    std::string name;
    std::vector<std::size_t> shape;
    const double* values = nullptr;
};

namespace detail {

/// Writes the tensors as one safetensors file at `path` (whole or not at all), streamed from the
/// caller's memory; returns the SHA-256 of its bytes.
inline std::string write_shard_tensors(const std::filesystem::path& path, const std::vector<shard_tensor>& tensors)
{
    std::vector<io::tensor_layout> layout;
    for (const auto& t : tensors) layout.push_back({t.name, t.shape, true});
    io::sha256 hash;
    io::write_file_atomically_in_pieces(path, [&](const auto& put) {
        const auto emit = [&](std::string_view piece) { hash.update(piece), put(piece); };
        emit(io::safetensors_header_bytes(layout));
        for (std::size_t i = 0; i < tensors.size(); ++i)
            if (const std::size_t count = io::shape_count(layout[i]); count != 0)
                emit(std::string_view(reinterpret_cast<const char*>(tensors[i].values), count * sizeof(double)));
    });
    return hash.hex();
}

} // namespace detail

/// Writes a shard's inputs into a directory, the manifest last (a directory without one holds no
/// usable inputs). The caller hands over what its own pass computed (shard_preparation.hpp).
class shard_inputs_writer {
public:
    shard_inputs_writer(std::filesystem::path dir, nlohmann::json identity) : dir_(std::move(dir)), manifest_(std::move(identity))
    {
        if (dir_.empty()) throw std::invalid_argument("qkov: the shard inputs' directory name is empty");
        std::filesystem::create_directories(dir_);
        // A directory prepared before names files this preparation replaces: its manifest goes
        // first, so that until finish() no shard reads the directory at all.
        std::filesystem::remove(dir_ / shard_inputs_manifest);
        manifest_["schema"] = schemas::shard_inputs;
        manifest_["layers"] = nlohmann::json::array();
        manifest_["circuits"] = nlohmann::json::array();
        manifest_["common"] = nullptr;
    }

    /// The token side (nothing is written without the token circuit: the shards then have none either).
    void add_common(const token_side& side)
    {
        if (!side.tokens) return;
        const auto& t = *side.tokens;
        const std::size_t D = t.g.shape()[0];
        const std::string name = "common.safetensors";
        const auto sha = detail::write_shard_tensors(dir_ / name, {{"token_circuit", {D, D}, t.g.data()},
                                                                   {"mean_embedding", {D}, t.mean_embedding.data()},
                                                                   {"mean_unembedding", {D}, t.mean_unembedding.data()}});
        manifest_["common"] = {{"file", name}, {"sha256", sha}, {"vocabulary", t.vocabulary}};
    }

    /// What the pass gives layer `layer`: the proxy rows, the sampled tokens' rows, the calibration
    /// text's (null: none), the residual's mean size.
    void add_layer(std::size_t layer, const matrix& proxy, const matrix& readout, const matrix* calibration, double residual_scale)
    {
        std::vector<shard_tensor> tensors{{"proxy", {proxy.shape()[0], proxy.shape()[1]}, proxy.data()},
                                          {"readout", {readout.shape()[0], readout.shape()[1]}, readout.data()},
                                          {"residual_scale", {1}, &residual_scale}};
        if (calibration) tensors.push_back({"calibration", {calibration->shape()[0], calibration->shape()[1]}, calibration->data()});
        const std::string name = "layer-" + std::to_string(layer) + ".safetensors";
        manifest_["layers"].push_back({{"layer", layer}, {"file", name}, {"sha256", detail::write_shard_tensors(dir_ / name, tensors)}});
    }

    /// What the layers before `first` write into the circuit search.
    void add_circuits(std::size_t first, const offset_writes& writes)
    {
        std::vector<shard_tensor> tensors;
        for (std::size_t k = 0; k < writes.by_offset.size(); ++k) {
            const auto& w = writes.by_offset[k];
            tensors.push_back({"writes." + std::to_string(k + 1), {w.shape()[0], w.shape()[1]}, w.data()});
        }
        std::vector<double> heads, attention;
        for (const auto& h : writes.heads) {
            heads.insert(heads.end(), {static_cast<double>(h.layer), static_cast<double>(h.head), static_cast<double>(h.attention.size())});
            attention.insert(attention.end(), h.attention.begin(), h.attention.end());
        }
        tensors.push_back({"writes.heads", {writes.heads.size(), 3}, heads.data()});
        tensors.push_back({"writes.attention", {attention.size()}, attention.data()});
        const std::string name = "circuits-" + std::to_string(first) + ".safetensors";
        manifest_["circuits"].push_back({{"first_layer", first}, {"file", name}, {"sha256", detail::write_shard_tensors(dir_ / name, tensors)}});
    }

    /// The manifest: the inputs become usable.
    void finish() { io::write_file_atomically(dir_ / shard_inputs_manifest, manifest_.dump(1) + "\n"); }

private:
    std::filesystem::path dir_;
    nlohmann::json manifest_;
};

/// What the pass gives one layer (shard_inputs_writer::add_layer).
struct shard_layer_inputs {
    matrix proxy, readout;
    std::optional<matrix> calibration;
    double residual_scale = 1.0;
};

/// A directory of shard inputs, its manifest checked against the shard's own identity.
class shard_inputs_reader {
public:
    shard_inputs_reader(std::filesystem::path dir, const nlohmann::json& identity) : dir_(std::move(dir))
    {
        const auto path = dir_ / shard_inputs_manifest;
        const std::string where = path.string();
        require_regular_file(path, "the manifest");
        if (std::filesystem::file_size(path) > shard_inputs_manifest_limit)
            throw shard_inputs_error("qkov: " + where + ": larger than " + std::to_string(shard_inputs_manifest_limit) + " bytes: not a manifest qkov wrote");
        std::ifstream in(path, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        auto parsed = io::parse_untrusted_json(text.str(), 16);
        if (const auto* problem = std::get_if<std::string>(&parsed)) throw shard_inputs_error("qkov: " + where + ": " + *problem);
        manifest_ = std::move(std::get<nlohmann::json>(parsed));
        if (!manifest_.is_object() || manifest_.value("schema", nlohmann::json()) != schemas::shard_inputs)
            throw shard_inputs_error("qkov: " + where + ": not a " + schemas::shard_inputs + " manifest");
        for (const char* part : {"model", "options"}) {
            const auto it = manifest_.find(part);
            if (it == manifest_.end() || *it != identity.at(part))
                throw shard_inputs_error("qkov: " + where + ": prepared for another " + (std::string(part) == "model" ? "model" : "set of options") + ": " +
                                         difference(it == manifest_.end() ? nlohmann::json() : *it, identity.at(part)) +
                                         " (prepare the inputs with the same model and the same options as the shards)");
        }
        for (const auto& [list, key] : {std::pair{"layers", "layer"}, std::pair{"circuits", "first_layer"}}) {
            const auto entries = manifest_.find(list);
            if (entries == manifest_.end() || !entries->is_array()) throw shard_inputs_error("qkov: " + where + ": has no list of " + list);
            for (const auto& e : *entries)
                if (!e.is_object() || !e.contains(key) || !e[key].is_number_unsigned() || !e.contains("file") || !e["file"].is_string() ||
                    !e.contains("sha256") || !e["sha256"].is_string())
                    throw shard_inputs_error("qkov: " + where + ": an entry of " + list + " without " + key + ", file and sha256");
        }
        const auto common = manifest_.find("common");
        if (common == manifest_.end() ||
            (!common->is_null() && !(common->is_object() && common->contains("file") && (*common)["file"].is_string() && common->contains("sha256") &&
                                     (*common)["sha256"].is_string() && common->contains("vocabulary") && (*common)["vocabulary"].is_number_unsigned())))
            throw shard_inputs_error("qkov: " + where + ": its common entry is neither null nor a file with its sha256 and vocabulary");
    }

    /// The token side the preparation read (W_E^T W_U and the mean rows), of width D and vocabulary
    /// V; nullopt when the model has no token circuit (the shard's own reading is then cheap).
    [[nodiscard]] std::optional<token_side> common(std::size_t D, std::size_t V) const
    {
        const auto& entry = manifest_["common"];
        if (entry.is_null()) return std::nullopt;
        token_side out;
        if (entry["vocabulary"].get<std::size_t>() != V) throw shard_inputs_error("qkov: " + (dir_ / shard_inputs_manifest).string() + ": another vocabulary");
        const auto file = checked_file(entry);
        token_circuits t;
        t.g = matrix_of(*file, "token_circuit", {D, D});
        t.mean_embedding = vector_of(*file, "mean_embedding", D);
        t.mean_unembedding = vector_of(*file, "mean_unembedding", D);
        t.vocabulary = V;
        require_only(*file, 3);
        out.tokens = std::move(t);
        out.vocabulary = V;
        return out;
    }

    /// What the pass gives layer `layer`: N1 proxy rows, T token rows and C calibration rows (0:
    /// none) of width D, as the shard's own pass would.
    [[nodiscard]] shard_layer_inputs layer(std::size_t layer, std::size_t N1, std::size_t T, std::size_t C, std::size_t D) const
    {
        const auto file = checked_file(entry("layers", "layer", layer, "rows of layer"));
        shard_layer_inputs out;
        out.proxy = matrix_of(*file, "proxy", {N1, D});
        out.readout = matrix_of(*file, "readout", {T, D});
        if (C > 0) out.calibration = matrix_of(*file, "calibration", {C, D});
        out.residual_scale = vector_of(*file, "residual_scale", 1)(0);
        if (!(out.residual_scale > 0)) throw bad(*file, "residual_scale is not positive (the norm divides by it)");
        require_only(*file, C > 0 ? 4 : 3);
        return out;
    }

    /// What the layers before `first` write into the circuit search: `window` offsets of S x D,
    /// written by heads below `heads` of layers below `first`.
    [[nodiscard]] offset_writes circuit_writes(std::size_t first, std::size_t window, std::size_t S, std::size_t D, std::size_t heads) const
    {
        const auto file = checked_file(entry("circuits", "first_layer", first, "circuit writes for a shard starting at layer"));
        offset_writes w;
        w.window = window;
        for (std::size_t k = 1; k <= window; ++k) w.by_offset.push_back(matrix_of(*file, "writes." + std::to_string(k), {S, D}));
        const auto* head_rows = tensor(*file, "writes.heads");
        const auto* attention = tensor(*file, "writes.attention");
        if (head_rows->shape.size() != 2 || head_rows->shape[1] != 3 || attention->shape.size() != 1)
            throw bad(*file, "writes.heads is not [n, 3] or writes.attention not a vector");
        const auto h = values_of(*head_rows), a = values_of(*attention);
        std::size_t at = 0;
        for (std::size_t i = 0; i < head_rows->shape[0]; ++i) {
            const double layer = h[3 * i], head = h[3 * i + 1], length = h[3 * i + 2];
            const auto whole = [](double x, double below) { return x >= 0 && x < below && x == std::floor(x); };
            if (!whole(layer, static_cast<double>(first)) || !whole(head, static_cast<double>(heads)) || !whole(length, static_cast<double>(window) + 2) ||
                at + static_cast<std::size_t>(length) > a.size())
                throw bad(*file, "writes.heads row " + std::to_string(i) + " names no earlier head or runs past writes.attention");
            w.heads.push_back({static_cast<std::size_t>(layer), static_cast<std::size_t>(head),
                               std::vector<double>(a.begin() + static_cast<std::ptrdiff_t>(at), a.begin() + static_cast<std::ptrdiff_t>(at + length))});
            at += static_cast<std::size_t>(length);
        }
        if (at != a.size()) throw bad(*file, "writes.attention holds values no head in writes.heads owns");
        require_only(*file, window + 2);
        return w;
    }

private:
    std::filesystem::path dir_;
    nlohmann::json manifest_;

    static void require_regular_file(const std::filesystem::path& path, const std::string& what)
    {
        if (const auto problem = io::not_a_plain_file(path)) throw shard_inputs_error("qkov: " + path.string() + ": " + *problem + " (" + what + ")");
    }

    /// Where two identities first differ, as "key: this vs that".
    static std::string difference(const nlohmann::json& found, const nlohmann::json& own, const std::string& at = "")
    {
        if (found.is_object() && own.is_object()) {
            std::set<std::string> keys;
            for (const auto& [k, v] : found.items()) keys.insert(k);
            for (const auto& [k, v] : own.items()) keys.insert(k);
            for (const auto& k : keys) {
                const auto a = found.contains(k) ? found[k] : nlohmann::json(), b = own.contains(k) ? own[k] : nlohmann::json();
                if (a != b) return difference(a, b, at.empty() ? k : at + "." + k);
            }
        }
        const auto brief = [](const nlohmann::json& v) {
            const std::string text = v.dump(-1, ' ', true);  // ASCII: cut anywhere, never inside a character
            return text.size() > 80 ? text.substr(0, 77) + "..." : text;
        };
        return (at.empty() ? std::string("the identity") : at) + " is " + brief(found) + " there, " + brief(own) + " here";
    }

    /// The entry of `list` whose `key` is `value`; its absence names what was prepared.
    [[nodiscard]] const nlohmann::json& entry(const char* list, const char* key, std::size_t value, const std::string& what) const
    {
        std::string prepared;
        for (const auto& e : manifest_[list]) {
            if (e[key].get<std::size_t>() == value) return e;
            prepared += (prepared.empty() ? "" : ", ") + std::to_string(e[key].get<std::size_t>());
        }
        throw shard_inputs_error("qkov: " + (dir_ / shard_inputs_manifest).string() + ": holds no " + what + " " + std::to_string(value) + " (prepared: " +
                                 (prepared.empty() ? std::string("none") : prepared) + "; prepare with this shard's range in --prepare-shards)");
    }

    /// The file an entry names, beside the manifest, after its name and its SHA-256 are checked.
    [[nodiscard]] std::unique_ptr<io::safetensors_file> checked_file(const nlohmann::json& entry) const
    {
        const std::string name = entry["file"].get<std::string>();
        if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
            throw shard_inputs_error("qkov: " + (dir_ / shard_inputs_manifest).string() + ": the file name '" + name + "' is not a name in its directory");
        const auto path = dir_ / name;
        require_regular_file(path, "named by the manifest");
        auto file = std::make_unique<io::safetensors_file>(path);
        if (io::file_sha256(path) != entry["sha256"].get<std::string>())
            throw shard_inputs_error("qkov: " + path.string() + ": its SHA-256 is not the one the manifest names: not the file prepared with it");
        return file;
    }

    static shard_inputs_error bad(const io::safetensors_file& f, const std::string& what) { return shard_inputs_error("qkov: " + f.location() + ": " + what); }

    static const io::tensor_view* tensor(const io::safetensors_file& f, const std::string& name)
    {
        const auto* t = f.find(name);
        if (t == nullptr) throw bad(f, "has no tensor " + name);
        if (t->dtype != io::tensor_dtype::f64) throw bad(f, name + " is not float64");
        return t;
    }

    /// A tensor's values as doubles through the model readers' block read (io::read_block: the
    /// file's size asked first, every value checked finite, the first bad one named).
    static std::vector<double> values_of(const io::tensor_view& t)
    {
        std::vector<double> out(t.count);
        io::read_block(t, 0, io::stored_rows(t), 0, io::stored_columns(t), {out.data(), io::stored_columns(t), 1});
        return out;
    }

    static matrix matrix_of(const io::safetensors_file& f, const std::string& name, std::vector<std::size_t> shape)
    {
        const auto* t = tensor(f, name);
        if (t->shape != shape)
            throw bad(f, name + " is not " + std::to_string(shape[0]) + " x " + std::to_string(shape[1]) + ", the shape this shard's own pass has");
        matrix m = xt::empty<double>({shape[0], shape[1]});
        io::read_block(*t, 0, shape[0], 0, shape[1], {m.data(), shape[1], 1});
        return m;
    }

    static vector vector_of(const io::safetensors_file& f, const std::string& name, std::size_t n)
    {
        const auto* t = tensor(f, name);
        if (t->shape != std::vector<std::size_t>{n}) throw bad(f, name + " does not have the model's width " + std::to_string(n));
        vector out = xt::empty<double>({n});
        io::read_block(*t, 0, 1, 0, n, {out.data(), n, 1});
        return out;
    }

    static void require_only(const io::safetensors_file& f, std::size_t count)
    {
        if (f.names().size() != count) throw bad(f, "holds " + std::to_string(f.names().size()) + " tensors, not the " + std::to_string(count) + " expected");
    }
};

} // namespace qkov::scan
