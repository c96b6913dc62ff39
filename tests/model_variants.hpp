// A trained model rewritten with a changed config.json and changed tensors: the models the tests
// build from ../shared's checkpoints (a Qwen3 with QK-norm tensors, a Mistral with a sliding
// window, a head scaled to a threshold, a file without its MLP). The tensors are read as doubles
// and written as float32, exact for the float32 checkpoints they come from, or as float64.
#pragma once

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "qkov/io/open_checkpoint.hpp"
#include "qkov/io/safetensors_writer.hpp"
#include "qkov/io/tensor_block.hpp"

namespace qkov::test {

struct model_variant {
    /// Merged into config.json (a null value removes the key).
    nlohmann::json config_changes = nlohmann::json::object();
    /// Called on every tensor kept (name, shape, row-major values), may change the values.
    std::function<void(const std::string&, const std::vector<std::size_t>&, std::vector<double>&)> edit;
    bool float64 = false;  ///< write float64 (a scaled weight keeps its every bit) instead of float32
    std::set<std::string> drop;                 ///< tensors left out
    std::vector<io::tensor_to_write> extra;     ///< tensors added
};

/// Writes `from` (a Hugging Face directory with one model.safetensors) changed by `v` into `to`.
inline void write_model_variant(const std::filesystem::path& from, const std::filesystem::path& to, const model_variant& v)
{
    std::filesystem::create_directories(to);
    nlohmann::json config;
    std::ifstream(from / "config.json") >> config;
    config.merge_patch(v.config_changes);
    std::ofstream(to / "config.json") << config.dump(2);
    const auto source = io::open_safetensors_checkpoint(from / "model.safetensors");
    std::vector<io::tensor_to_write> tensors;
    for (const auto& name : source->names()) {
        if (v.drop.count(name)) continue;
        const auto& t = *source->find(name);
        const std::size_t rows = io::stored_rows(t), columns = io::stored_columns(t);
        std::vector<double> values(rows * columns);
        io::read_block(t, 0, rows, 0, columns, {values.data(), columns, 1});
        if (v.edit) v.edit(name, t.shape, values);
        if (v.float64) tensors.push_back({name, t.shape, {}, values});
        else tensors.push_back({name, t.shape, std::vector<float>(values.begin(), values.end())});
    }
    tensors.insert(tensors.end(), v.extra.begin(), v.extra.end());
    io::write_safetensors(to / "model.safetensors", tensors);
}

/// Multiplies rows [first, first + count) of a [rows, columns] tensor by `factor`.
inline void scale_rows(std::vector<double>& values, std::size_t columns, std::size_t first, std::size_t count, double factor)
{
    for (std::size_t r = first; r < first + count; ++r)
        for (std::size_t c = 0; c < columns; ++c) values[r * columns + c] *= factor;
}

/// A fresh directory under the system's temporary directory for one test's files.
inline std::filesystem::path scratch_directory(const std::string& name)
{
    const auto dir = std::filesystem::temp_directory_path() / ("qkov-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

} // namespace qkov::test
