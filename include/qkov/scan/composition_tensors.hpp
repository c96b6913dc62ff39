// The composition pairs' numbers as tensors, in a safetensors file beside the scan's JSON
// (`scan.json` -> `scan.tensors.safetensors`), which NumPy, PyTorch and TransformerLens users load
// as they are:
//   q_composition, k_composition, v_composition  [L, H, L, H] float64, indexed [source layer,
//       source head, target layer, target head] as TransformerLens' all_composition_scores
//   t3_singular_values  [L, H, L, H, d] float64: each pair's T3 spectrum (T3 is d x d, d the
//       head dimension), descending
// NaN where the document holds no pair (the source not in an earlier layer than the target, or
// the target outside the scanned layers) and, in t3_singular_values, past a spectrum's end. A
// pair's scores are finite (composition.hpp), so NaN marks absence and nothing else.
//
// The JSON names the file and the SHA-256 of its bytes; a reader checks both before it trusts a
// value (composition_tensors_reader). As JSON the pairs were most of a scan's document: 523,776
// objects and 2.4 GB of text at Llama-3-8B's shape, where these tensors hold 3 x 8 MB of scores
// and 1.07 GB of spectra in binary.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/io/atomic_file.hpp"
#include "qkov/io/file_sha256.hpp"
#include "qkov/io/mapped_file.hpp"
#include "qkov/io/plain_file.hpp"
#include "qkov/io/safetensors.hpp"
#include "qkov/io/safetensors_writer.hpp"
#include "qkov/io/sha256.hpp"
#include "qkov/scan/composition_score.hpp"

namespace qkov::scan {

/// The score tensors, in the file's order (q, k, v), then the spectra.
inline constexpr std::array<const char*, 3> composition_score_tensors = {"q_composition", "k_composition", "v_composition"};
inline constexpr const char* t3_tensor = "t3_singular_values";
inline constexpr std::size_t composition_tensor_count = 4;
/// The longest spectrum a reader accepts: a head dimension (T3 is d x d) far past any model's.
inline constexpr std::size_t max_t3_length = 1u << 16;

/// Whether a value is the NaN that marks an absent pair, to the bit: a merge copies bytes, and
/// another NaN would make two files of one scan differ.
inline bool marks_absence(double v)
{
    return std::bit_cast<std::uint64_t>(v) == std::bit_cast<std::uint64_t>(std::numeric_limits<double>::quiet_NaN());
}

/// The tensors' dimensions: the model's layers and heads per layer, the spectra's length.
struct composition_tensors_shape {
    std::size_t layers = 0, heads = 0, spectrum = 0;
    /// Values in one row (a source head's) of tensor `tensor` (0-2 the scores, 3 the spectra).
    [[nodiscard]] std::size_t row_values(std::size_t tensor) const { return layers * heads * (tensor == 3 ? spectrum : 1); }
};

/// What the scan's JSON says of the file: its name (beside the JSON), its SHA-256, its pairs, and
/// how far a float32 scan's scores may be from the float64 scan's (the largest of the pairs'
/// bounds, composition.hpp; 0 in float64).
struct composition_tensors_ref {
    std::string file;
    std::string sha256;
    std::size_t pairs = 0;
    double largest_bound = 0;
};

/// A reader's error: the file is absent, not a regular file, or not the four tensors of the
/// model's shape the JSON names.
struct composition_tensors_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The companion's file name for a document at `json`: its name with `.json` replaced (or, for
/// another name, followed) by `.tensors.safetensors`.
inline std::string composition_tensors_name(const std::filesystem::path& json)
{
    std::string name = json.filename().string();
    if (name.size() > 5 && name.ends_with(".json")) name.resize(name.size() - 5);
    return name + ".tensors.safetensors";
}

/// Streams the file's bytes to put(piece): the header, then each tensor source head by source head,
/// row(tensor, source layer, source head, out) filling a row (out arrives all NaN). Returns the
/// SHA-256 of the bytes. One row is held at a time: L x H x S values (1 MB at Llama-3-8B's shape).
template <class Put, class Row>
std::string put_composition_tensors(Put&& put, const composition_tensors_shape& shape, Row&& row)
{
    std::vector<io::tensor_layout> layout;
    for (const char* name : composition_score_tensors) layout.push_back({name, {shape.layers, shape.heads, shape.layers, shape.heads}, true});
    layout.push_back({t3_tensor, {shape.layers, shape.heads, shape.layers, shape.heads, shape.spectrum}, true});
    io::sha256 hash;
    const auto emit = [&](std::string_view piece) {
        hash.update(piece);
        put(piece);
    };
    emit(io::safetensors_header_bytes(layout));
    std::vector<double> values;
    for (std::size_t tensor = 0; tensor < composition_tensor_count; ++tensor)
        for (std::size_t layer = 0; layer < shape.layers; ++layer)
            for (std::size_t head = 0; head < shape.heads; ++head) {
                values.assign(shape.row_values(tensor), std::numeric_limits<double>::quiet_NaN());
                row(tensor, layer, head, std::span<double>(values));
                emit(std::string_view(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double)));
            }
    return hash.hex();
}

/// The file of a scan's pairs (a model of `shape.layers` x `shape.heads`, spectra of at most
/// `shape.spectrum` values), streamed to put(piece).
template <class Put>
composition_tensors_ref put_composition_tensors(Put&& put, const std::vector<composition_score>& pairs, const composition_tensors_shape& shape,
                                                std::string file)
{
    const std::size_t layers = shape.layers, heads = shape.heads;
    constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
    const std::size_t places = io::shape_count({"q_composition", {layers, heads, layers, heads}, true});  // throws on overflow
    std::vector<std::size_t> at(places, none);  // pair index by [source, target]
    double largest_bound = 0;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        const auto& p = pairs[i];
        if (p.source_layer >= p.target_layer || p.target_layer >= layers || p.source_head >= heads || p.target_head >= heads)
            throw std::logic_error("qkov: composition tensors: a pair outside the model's layers and heads, or not from an earlier layer");
        if (!std::isfinite(p.q) || !std::isfinite(p.k) || !std::isfinite(p.v))
            throw std::logic_error("qkov: composition tensors: a pair's score is not finite (NaN marks an absent pair)");
        for (const double b : {p.q_bound, p.k_bound, p.v_bound}) {
            if (!(b >= 0) || !std::isfinite(b)) throw std::logic_error("qkov: composition tensors: a pair's bound is not a finite non-negative number");
            largest_bound = std::max(largest_bound, b);
        }
        auto& slot = at[((p.source_layer * heads + p.source_head) * layers + p.target_layer) * heads + p.target_head];
        if (slot != none) throw std::logic_error("qkov: composition tensors: a pair twice");
        slot = i;
        if (p.t3_singular_values().size() > shape.spectrum) throw std::logic_error("qkov: composition tensors: a T3 spectrum longer than the head dimension");
    }
    const auto row = [&](std::size_t tensor, std::size_t layer, std::size_t head, std::span<double> out) {
        const std::size_t* mine = at.data() + (layer * heads + head) * layers * heads;
        for (std::size_t t = 0; t < layers * heads; ++t) {
            if (mine[t] == none) continue;
            const auto& p = pairs[mine[t]];
            if (tensor == 3) {
                const auto& s = p.t3_singular_values();
                std::copy(s.begin(), s.end(), out.begin() + static_cast<std::ptrdiff_t>(t * shape.spectrum));
            } else {
                out[t] = tensor == 0 ? p.q : tensor == 1 ? p.k : p.v;
            }
        }
    };
    return {std::move(file), put_composition_tensors(put, shape, row), pairs.size(), largest_bound};
}

/// Writes the file at `path` (whole or not at all) and returns what the JSON says of it.
inline composition_tensors_ref write_composition_tensors(const std::filesystem::path& path, const std::vector<composition_score>& pairs,
                                                         const composition_tensors_shape& shape)
{
    composition_tensors_ref ref;
    io::write_file_atomically_in_pieces(path, [&](const auto& put) { ref = put_composition_tensors(put, pairs, shape, path.filename().string()); });
    return ref;
}

/// One document's tensor file, read after checking that it is a regular file (not a link: a name
/// beside an untrusted document must not reach another file), holds the four tensors in float64 at
/// the model's shape and nothing else (the safetensors reader's checks first, which read only the
/// header), and is the file the document names (its SHA-256, over every byte, last). Rows are read
/// in pieces (a target layer range of one source head's row), never the whole file. What the
/// values are, pair by pair, is the merge's to check (scan_merge.hpp). A file changed while it is
/// read is not caught (the model readers' limit too: mapped_file_watch.hpp).
class composition_tensors_reader {
public:
    /// A file this process has just written, its SHA-256 taken from the bytes as they were written
    /// (merge_scans' output): its checks but the checksum, which would read it all once more.
    struct written_here {};

    composition_tensors_reader(const std::filesystem::path& path, const std::string& sha256, std::size_t layers, std::size_t heads)
        : composition_tensors_reader(path, written_here{}, layers, heads)
    {
        // The actual checksum is not printed: it would tell the checksum of whatever file the name reaches.
        if (io::file_sha256(path) != sha256)
            throw composition_tensors_error(path_ + ": its SHA-256 is not the " + sha256 + " the document names: not the file scanned with it");
    }

    composition_tensors_reader(const std::filesystem::path& path, written_here, std::size_t layers, std::size_t heads) : path_(path.string())
    {
        if (const auto problem = io::not_a_plain_file(path))
            throw composition_tensors_error(path_ + ": " + *problem + " (the document's composition tensors)");
        if (layers == 0 || heads == 0) throw composition_tensors_error(path_ + ": the model has no heads");
        file_.emplace(path);
        const auto names = file_->names();
        if (names.size() != composition_tensor_count) throw composition_tensors_error(path_ + ": holds " + std::to_string(names.size()) + " tensors, not 4");
        shape_ = {layers, heads, 0};
        for (std::size_t i = 0; i < composition_tensor_count; ++i) {
            const char* name = i < 3 ? composition_score_tensors[i] : t3_tensor;
            const auto* t = file_->find(name);
            if (t == nullptr) throw composition_tensors_error(path_ + ": has no tensor " + name);
            if (t->dtype != io::tensor_dtype::f64) throw composition_tensors_error(path_ + ": " + name + " is not float64");
            std::vector<std::size_t> expected{layers, heads, layers, heads};
            if (i == 3) {
                if (t->shape.size() != 5 || t->shape[4] > max_t3_length)
                    throw composition_tensors_error(path_ + ": " + name + " is not [L, H, L, H, S] with S at most " + std::to_string(max_t3_length));
                shape_.spectrum = t->shape[4];
                expected.push_back(shape_.spectrum);
            }
            if (t->shape != expected)
                throw composition_tensors_error(path_ + ": " + name + " does not have the model's shape (" + std::to_string(layers) + " layers x " +
                                                std::to_string(heads) + " heads)");
            tensors_[i] = t;
        }
    }

    [[nodiscard]] const composition_tensors_shape& shape() const { return shape_; }
    [[nodiscard]] const std::string& path() const { return path_; }

    /// Tensor `tensor`'s values for the source head (layer, head) and the target layers
    /// first..last, into out (row_values(tensor) / layers x (last - first + 1) values).
    void read(std::size_t tensor, std::size_t layer, std::size_t head, std::size_t first, std::size_t last, std::span<double> out) const
    {
        if (tensor >= composition_tensor_count || layer >= shape_.layers || head >= shape_.heads || first > last || last >= shape_.layers)
            throw std::logic_error("qkov: composition tensors: a read outside the tensor");
        const io::tensor_view& t = *tensors_[tensor];
        const std::size_t per_layer = shape_.row_values(tensor) / shape_.layers;
        const std::size_t begin = (layer * shape_.heads + head) * shape_.row_values(tensor) + first * per_layer, count = (last - first + 1) * per_layer;
        if (out.size() != count) throw std::logic_error("qkov: composition tensors: a read into a span of another size");
        if (t.watch) t.watch->require_unshrunk();
        std::memcpy(out.data(), t.bytes.data() + begin * sizeof(double), count * sizeof(double));
    }

private:
    std::string path_;
    std::optional<io::safetensors_file> file_;
    composition_tensors_shape shape_;
    std::array<const io::tensor_view*, composition_tensor_count> tensors_{};
};

} // namespace qkov::scan
