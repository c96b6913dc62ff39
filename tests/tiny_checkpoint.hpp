// Writes a tiny Hugging Face checkpoint (config.json + model.safetensors) into a temporary
// directory, so that tests can plant weights whose analysis is known by construction and read
// them back through the same loaders real models go through.
//
// Every tensor is given as float values and stored in one dtype for the whole file: F32 as is,
// BF16 rounded to nearest, ties to even (qkov::bf16). stored_value says what a value becomes, so a
// test can state its expected numbers from what the file really holds.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "qkov/scalar/narrow_float.hpp"

namespace qkov::test {

enum class stored_dtype { f32, bf16 };

inline const char* safetensors_name(stored_dtype t) { return t == stored_dtype::f32 ? "F32" : "BF16"; }
inline const char* config_name(stored_dtype t) { return t == stored_dtype::f32 ? "float32" : "bfloat16"; }

/// A tensor for the writer: its shape and its row-major values.
struct float_tensor {
    std::vector<std::size_t> shape;
    std::vector<float> values;
};

/// The value a float becomes once stored as `t`.
inline float stored_value(float x, stored_dtype t) { return t == stored_dtype::f32 ? x : bf16(x).to_float(); }

/// Writes `tensors` (stored as `dtype`) and `config` into temp/qkov-<name>-<process id>/ and returns
/// that directory: the process id keeps two runs of a suite at once (two builds on one machine)
/// from writing over each other's files. Offsets follow the map's order; the header carries the
/// "__metadata__" entry torch writes.
inline std::filesystem::path write_checkpoint(const std::string& name, const nlohmann::json& config,
                                              const std::map<std::string, float_tensor>& tensors, stored_dtype dtype = stored_dtype::f32)
{
    const auto dir = std::filesystem::temp_directory_path() / ("qkov-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    nlohmann::json header = {{"__metadata__", {{"format", "pt"}}}};
    std::string data;
    for (const auto& [tensor_name, t] : tensors) {
        std::size_t count = 1;
        for (const auto n : t.shape) count *= n;
        if (count != t.values.size())
            throw std::invalid_argument("tensor " + tensor_name + ": " + std::to_string(t.values.size()) + " values for a shape of " + std::to_string(count));
        const std::size_t begin = data.size();
        for (const float x : t.values) {
            if (dtype == stored_dtype::f32) data.append(reinterpret_cast<const char*>(&x), 4);
            else {
                const std::uint16_t bits = bf16(x).bits();
                data.append(reinterpret_cast<const char*>(&bits), 2);
            }
        }
        header[tensor_name] = {{"dtype", safetensors_name(dtype)}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
    }
    const std::string text = header.dump();
    std::ofstream out(dir / "model.safetensors", std::ios::binary | std::ios::trunc);
    const std::uint64_t n = text.size();
    out.write(reinterpret_cast<const char*>(&n), 8);
    out.write(text.data(), static_cast<std::streamsize>(n));
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    std::ofstream(dir / "config.json", std::ios::trunc) << config.dump();
    return dir;
}

} // namespace qkov::test
