// Writes float32 tensors as one safetensors file (the format safetensors.hpp reads): an 8-byte
// little-endian header length, the JSON header with each tensor's dtype, shape and byte range,
// then the data. For models qkov builds itself (the seed heads the scan is checked on) and for
// tests; written whole or not at all (atomic_file.hpp).
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
    std::vector<float> values;  ///< row-major
};

inline void write_safetensors(const std::filesystem::path& path, const std::vector<tensor_to_write>& tensors)
{
    static_assert(std::endian::native == std::endian::little, "qkov: safetensors data is little-endian; this writer copies host floats");
    nlohmann::json header = nlohmann::json::object();
    std::set<std::string> names;
    std::size_t bytes = 0;
    for (const auto& t : tensors) {
        if (t.name.empty() || !names.insert(t.name).second)
            throw std::invalid_argument("qkov: safetensors writer: tensor name '" + t.name + "' is empty or repeated");
        std::size_t count = 1;
        for (const auto n : t.shape) {
            if (n != 0 && count > SIZE_MAX / n) throw std::overflow_error("qkov: safetensors writer: the shape of " + t.name + " overflows");
            count *= n;
        }
        if (count != t.values.size())
            throw std::invalid_argument("qkov: safetensors writer: " + t.name + " has " + std::to_string(t.values.size()) + " values for a shape of " +
                                        std::to_string(count));
        header[t.name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {bytes, bytes + 4 * count}}};
        bytes += 4 * count;
    }
    const std::string text = header.dump();
    std::string file(8 + text.size() + bytes, '\0');
    const std::uint64_t length = text.size();
    std::memcpy(file.data(), &length, 8);
    std::memcpy(file.data() + 8, text.data(), text.size());
    std::size_t at = 8 + text.size();
    for (const auto& t : tensors) {
        std::memcpy(file.data() + at, t.values.data(), 4 * t.values.size());
        at += 4 * t.values.size();
    }
    write_file_atomically(path, file);
}

} // namespace qkov::io
