// Opening whatever a user points at: a .safetensors file, a model directory (single file or
// sharded index). GGUF and llama2.c .bin files are opened by model/open_model.hpp. PyTorch pickles (.bin, .pt, .pth, .ckpt) are refused by
// name and never opened: unpickling runs arbitrary code.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "qkov/io/model_file_error.hpp"
#include "qkov/io/safetensors.hpp"
#include "qkov/io/safetensors_index.hpp"
#include "qkov/io/tensor_view.hpp"

namespace qkov::io {

inline bool is_pickle_name(const std::filesystem::path& p)
{
    const auto ext = p.extension().string();
    return ext == ".bin" || ext == ".pt" || ext == ".pth" || ext == ".ckpt" || ext == ".pkl";
}

/// The weights file(s) of PATH: a directory holding model.safetensors, model.safetensors.index.json
/// or a single other .safetensors file, or a .safetensors file.
inline std::unique_ptr<tensor_source> open_safetensors_checkpoint(const std::filesystem::path& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        // model.safetensors before the index, as transformers looks for them: a directory holding
        // both is read as transformers would read it, not as a different model.
        if (std::filesystem::exists(path / "model.safetensors")) return std::make_unique<safetensors_file>(path / "model.safetensors");
        if (std::filesystem::exists(path / "model.safetensors.index.json"))
            return std::make_unique<safetensors_index>(path / "model.safetensors.index.json");
        bool empty = true, pickle = false;
        std::vector<std::filesystem::path> safetensors;
        for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
            empty = false;
            if (is_pickle_name(entry.path())) pickle = true;
            if (entry.path().extension() == ".safetensors") safetensors.push_back(entry.path());
        }
        // One safetensors file under another name is unambiguous; several without an index are not.
        if (safetensors.size() == 1) return std::make_unique<safetensors_file>(safetensors.front());
        if (safetensors.size() > 1)
            throw model_file_error(path.string(), std::to_string(safetensors.size()) +
                                                      " .safetensors files but no model.safetensors.index.json saying which tensor is where");
        if (empty) throw model_file_error(path.string(), "the directory is empty");
        if (pickle)
            throw model_file_error(path.string(), "holds only a PyTorch pickle checkpoint, which qkov refuses to load (unpickling runs code); "
                                                  "convert it to safetensors");
        throw model_file_error(path.string(), "no model.safetensors or model.safetensors.index.json in the directory");
    }
    if (is_pickle_name(path))
        throw model_file_error(path.string(), "a PyTorch pickle checkpoint: qkov never unpickles (it runs code) and reads only "
                                              "safetensors, GGUF and llama2.c .bin files; convert it to safetensors");
    if (path.filename() == "model.safetensors.index.json") return std::make_unique<safetensors_index>(path);
    return std::make_unique<safetensors_file>(path);
}

} // namespace qkov::io
