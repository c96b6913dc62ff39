// A model from a path: a Hugging Face directory (config.json + safetensors, single or sharded) or
// a .safetensors file with its config.json beside it, a .gguf file (configuration in its metadata),
// or a llama2.c .bin checkpoint (configuration in its header). A .bin file that is a zip archive is
// a PyTorch checkpoint and is refused like every pickle.
#pragma once

#include <filesystem>
#include <system_error>

#include "qkov/io/model_config.hpp"
#include "qkov/io/open_checkpoint.hpp"
#include "qkov/io/safetensors_index.hpp"
#include "qkov/model/attention_model.hpp"
#include "qkov/model/gguf_model.hpp"
#include "qkov/model/llama2c_model.hpp"

namespace qkov::model {

inline attention_model open_model(const std::filesystem::path& path)
{
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw io::model_file_error(path.string(), "no such file or directory");
    if (path.extension() == ".gguf") return open_gguf_model(path);
    if (path.extension() == ".bin" && std::filesystem::is_regular_file(path, ec) && !io::is_zip_archive(path)) return open_llama2c_model(path);
    const auto dir = std::filesystem::is_directory(path, ec) ? path : path.parent_path();
    auto source = io::open_safetensors_checkpoint(path);  // refuses pickles and empty directories first
    const auto config_path = dir / "config.json";
    // A symlink loop or an unreadable directory is an error of its own, not a missing file.
    const auto status = std::filesystem::status(config_path, ec);
    if (ec && ec != std::errc::no_such_file_or_directory) throw io::model_file_error(config_path.string(), "cannot be read: " + ec.message());
    if (!std::filesystem::exists(status)) throw io::model_file_error(config_path.string(), "config.json is missing beside the weights");
    auto config = io::parse_model_config(io::read_json_object(config_path), config_path.string());
    return attention_model(std::move(config), std::move(source));
}

} // namespace qkov::model
