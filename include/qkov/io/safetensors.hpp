// One .safetensors file, memory-mapped and validated before any tensor is handed out.
//
// Layout: an 8-byte little-endian header length N, N bytes of JSON (an object mapping tensor names
// to {"dtype", "shape", "data_offsets": [begin, end]}, plus an optional "__metadata__"), then the
// data; offsets are relative to the data start, end exclusive. Checked, in this order, each with
// a model_file_error naming the file and (where there is one) the tensor:
//   N at most 100 MB and within the file; the header nests at most 8 levels and parses as a JSON
//   object; every entry is an object with a string dtype qkov reads (others refused by name), a
//   shape of non-negative integers whose product times the item size does not overflow, and two
//   non-negative integer offsets with begin <= end <= data size and end - begin equal to that byte
//   count; no two tensors overlap; no name appears twice (nlohmann keeps the last duplicate, so
//   names are counted in a first pass over the raw header).
// Trailing bytes after the last tensor are allowed (some writers pad).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/io/json_depth.hpp"
#include "qkov/io/json_repeated_key.hpp"
#include "qkov/io/mapped_file.hpp"
#include "qkov/io/model_file_error.hpp"
#include "qkov/io/tensor_view.hpp"

namespace qkov::io {

inline constexpr std::uint64_t safetensors_max_header = 100u * 1000u * 1000u;
inline constexpr std::size_t safetensors_max_depth = 8;
inline constexpr std::size_t safetensors_max_rank = 8;

namespace detail {

/// A non-negative integer from a JSON value, or an error naming what it was.
inline std::uint64_t json_size(const nlohmann::json& v, const std::string& file, const std::string& tensor, const char* what)
{
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer()) throw model_file_error(file, tensor, std::string(what) + " is negative (" + v.dump() + ")");
    throw model_file_error(file, tensor, std::string(what) + " is not an integer (" + v.dump() + ")");
}

} // namespace detail

class safetensors_file : public tensor_source {
public:
    explicit safetensors_file(const std::filesystem::path& path) : map_(path)
    {
        const std::string& file = map_.path();
        const auto bytes = map_.bytes();
        if (bytes.size() < 8) throw model_file_error(file, "too short for a safetensors header length (" + std::to_string(bytes.size()) + " bytes)");
        std::uint64_t n;
        std::memcpy(&n, bytes.data(), 8);
        if (n > safetensors_max_header) {
            // Eight printable bytes are text, not a length: most often a JSON or text file given as a model.
            const std::string start(reinterpret_cast<const char*>(bytes.data()), 8);
            const bool text = std::all_of(start.begin(), start.end(), [](char c) { return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t' || c == '\r'; });
            throw model_file_error(file, "not a safetensors file: header length " + std::to_string(n) + " is absurdly large (limit " +
                                             std::to_string(safetensors_max_header) + ")" +
                                             (text ? "; it starts with the text " + nlohmann::json(start).dump() + ", so it is a text or JSON file, not a model" : ""));
        }
        if (n > bytes.size() - 8)
            throw model_file_error(file, "header length " + std::to_string(n) + " runs past the end of the file (" + std::to_string(bytes.size()) + " bytes)");
        const std::string_view text(reinterpret_cast<const char*>(bytes.data()) + 8, static_cast<std::size_t>(n));
        if (json_nesting_depth(text) > safetensors_max_depth)
            throw model_file_error(file, "header nests deeper than " + std::to_string(safetensors_max_depth) + " levels");
        nlohmann::json header = nlohmann::json::parse(text, nullptr, false);
        if (header.is_discarded()) throw model_file_error(file, "header is not valid JSON");
        if (!header.is_object()) throw model_file_error(file, "header is not a JSON object");
        if (const auto dup = first_repeated_key(text)) {
            if (dup->depth == 1) throw model_file_error(file, dup->key, "the name appears twice in the header");
            throw model_file_error(file, "the key \"" + dup->key + "\" appears twice in one object of the header");
        }
        data_ = bytes.subspan(8 + static_cast<std::size_t>(n));
        for (const auto& [name, entry] : header.items()) {
            if (name == "__metadata__") {
                if (!entry.is_object()) throw model_file_error(file, "__metadata__ is not an object");
                continue;
            }
            tensors_.add(parse_entry(name, entry));
        }
        if (const auto [a, b] = tensors_.first_overlap(); !a.empty())
            throw model_file_error(map_.path(), a, "its bytes overlap those of tensor '" + b + "'");
    }

    [[nodiscard]] const tensor_view* find(const std::string& name) const override { return tensors_.find(name); }
    [[nodiscard]] std::vector<std::string> names() const override { return tensors_.names(); }
    [[nodiscard]] std::string format() const override { return "safetensors"; }
    [[nodiscard]] std::string location() const override { return map_.path(); }
    [[nodiscard]] std::size_t file_size() const { return map_.size(); }

private:
    tensor_view parse_entry(const std::string& name, const nlohmann::json& entry) const
    {
        const std::string& file = map_.path();
        if (!entry.is_object()) throw model_file_error(file, name, "entry is not an object");
        const auto dtype_it = entry.find("dtype");
        const auto shape_it = entry.find("shape");
        const auto offsets_it = entry.find("data_offsets");
        if (dtype_it == entry.end() || !dtype_it->is_string()) throw model_file_error(file, name, "missing or non-string dtype");
        if (shape_it == entry.end() || !shape_it->is_array()) throw model_file_error(file, name, "missing or non-array shape");
        if (offsets_it == entry.end() || !offsets_it->is_array() || offsets_it->size() != 2)
            throw model_file_error(file, name, "data_offsets is not a pair [begin, end]");
        const auto dtype = parse_safetensors_dtype(dtype_it->get<std::string>());
        if (!dtype)
            throw model_file_error(file, name, "unsupported dtype " + dtype_it->get<std::string>() + " (qkov reads F64, F32, F16 and BF16)");
        if (shape_it->size() > safetensors_max_rank) throw model_file_error(file, name, "shape has more than 8 dimensions");
        tensor_view t;
        t.file = file;
        t.watch = map_.watch();
        t.name = name;
        t.dtype = *dtype;
        std::uint64_t count = 1;
        for (const auto& dim : *shape_it) {
            const std::uint64_t n = detail::json_size(dim, file, name, "a dimension");
            if (n != 0 && count > std::numeric_limits<std::uint64_t>::max() / n)
                throw model_file_error(file, name, "shape product overflows 64 bits (" + shape_it->dump() + ")");
            count *= n;
            t.shape.push_back(static_cast<std::size_t>(n));
        }
        const std::uint64_t size = item_size(*dtype);
        if (count > std::numeric_limits<std::uint64_t>::max() / size)
            throw model_file_error(file, name, "byte size overflows 64 bits (" + shape_it->dump() + ")");
        const std::uint64_t begin = detail::json_size((*offsets_it)[0], file, name, "data_offsets begin");
        const std::uint64_t end = detail::json_size((*offsets_it)[1], file, name, "data_offsets end");
        if (begin > end) throw model_file_error(file, name, "data_offsets reversed (begin " + std::to_string(begin) + " > end " + std::to_string(end) + ")");
        if (end > data_.size())
            throw model_file_error(file, name, "data_offsets end " + std::to_string(end) + " is past the end of the data (" + std::to_string(data_.size()) +
                                                   " bytes): the file is truncated or the header is wrong");
        if (end - begin != count * size)
            throw model_file_error(file, name, "shape " + shape_it->dump() + " needs " + std::to_string(count * size) + " bytes but data_offsets span " +
                                                   std::to_string(end - begin));
        t.count = static_cast<std::size_t>(count);
        t.bytes = data_.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
        return t;
    }

    mapped_file map_;
    std::span<const std::byte> data_;
    tensor_table tensors_;
};

} // namespace qkov::io
