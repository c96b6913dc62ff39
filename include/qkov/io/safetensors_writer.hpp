// Writes float32 (or float64) tensors as one safetensors file (the format safetensors.hpp reads): an 8-byte
// little-endian header length, the JSON header with each tensor's dtype, shape and byte range,
// then the data. For models qkov builds itself (the seed heads the scan is checked on), for
// tests, and (its header alone, the data streamed after it) for the scan's composition tensors;
// written whole or not at all (atomic_file.hpp).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/io/atomic_file.hpp"

namespace qkov::io {

struct tensor_to_write {
    std::string name;
    std::vector<std::size_t> shape;
    std::vector<float> values;      ///< row-major, stored as F32
    std::vector<double> values64 = {};  ///< row-major, stored as F64 instead when `values` is empty and this is not
};

/// A tensor's place in a file being written: its name, shape and width (F64 when wide, else F32).
struct tensor_layout {
    std::string name;
    std::vector<std::size_t> shape;
    bool wide = false;
};

/// The number of values a shape holds; throws when the product overflows.
inline std::size_t shape_count(const tensor_layout& t)
{
    std::size_t count = 1;
    for (const auto n : t.shape) {
        if (n != 0 && count > SIZE_MAX / n) throw std::overflow_error("qkov: safetensors writer: the shape of " + t.name + " overflows");
        count *= n;
    }
    if (count > SIZE_MAX / 8) throw std::overflow_error("qkov: safetensors writer: the shape of " + t.name + " overflows");
    return count;
}

/// The file's first bytes: the 8-byte header length and the JSON header placing `tensors`' data one
/// after another in their order (the header's keys sorted, so the same tensors always give the same
/// bytes: a checksum of them identifies them). The data follows, each tensor's values row-major.
inline std::string safetensors_header_bytes(const std::vector<tensor_layout>& tensors)
{
    static_assert(std::endian::native == std::endian::little, "qkov: safetensors data is little-endian; this writer copies host values");
    nlohmann::json header = nlohmann::json::object();
    std::set<std::string> names;
    std::size_t bytes = 0;
    for (const auto& t : tensors) {
        if (t.name.empty() || !names.insert(t.name).second)
            throw std::invalid_argument("qkov: safetensors writer: tensor name '" + t.name + "' is empty or repeated");
        const std::size_t size = (t.wide ? 8 : 4) * shape_count(t);
        header[t.name] = {{"dtype", t.wide ? "F64" : "F32"}, {"shape", t.shape}, {"data_offsets", {bytes, bytes + size}}};
        bytes += size;
    }
    const std::string text = header.dump();
    std::string start(8, '\0');
    const std::uint64_t length = text.size();
    std::memcpy(start.data(), &length, 8);
    return start + text;
}

/// The bytes of a safetensors file holding `tensors`, in their order.
inline std::string safetensors_bytes(const std::vector<tensor_to_write>& tensors)
{
    std::vector<tensor_layout> layout;
    for (const auto& t : tensors) {
        const bool wide = t.values.empty() && !t.values64.empty();
        layout.push_back({t.name, t.shape, wide});
        const std::size_t stored = wide ? t.values64.size() : t.values.size();
        if (shape_count(layout.back()) != stored)
            throw std::invalid_argument("qkov: safetensors writer: " + t.name + " has " + std::to_string(stored) + " values for a shape of " +
                                        std::to_string(shape_count(layout.back())));
    }
    std::string file = safetensors_header_bytes(layout);
    for (const auto& t : tensors) {
        const bool wide = t.values.empty() && !t.values64.empty();
        const auto* data = wide ? static_cast<const char*>(static_cast<const void*>(t.values64.data())) : static_cast<const char*>(static_cast<const void*>(t.values.data()));
        const std::size_t size = wide ? 8 * t.values64.size() : 4 * t.values.size();
        if (size != 0) file.append(data, size);  // an empty vector's data() may be null
    }
    return file;
}

inline void write_safetensors(const std::filesystem::path& path, const std::vector<tensor_to_write>& tensors)
{
    write_file_atomically(path, safetensors_bytes(tensors));
}

} // namespace qkov::io
