// A sharded safetensors checkpoint: model.safetensors.index.json maps every tensor to its shard.
//
// Every shard the index names is opened and validated at once (mapping is cheap, reading is lazy),
// so a missing shard, or a shard that lacks a tensor the index promises, is an error when the
// checkpoint is opened, not halfway through a scan. Shard names must be plain file names in the
// index's directory (no '/' or '..': an index must not point elsewhere on the disk).
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/io/json_depth.hpp"
#include "qkov/io/json_repeated_key.hpp"
#include "qkov/io/model_file_error.hpp"
#include "qkov/io/safetensors.hpp"
#include "qkov/io/tensor_view.hpp"

namespace qkov::io {

/// A small text file (config.json, an index), read whole after checking it is a regular file
/// of reasonable size.
inline std::string read_small_text_file(const std::filesystem::path& path, std::uintmax_t limit = 64u << 20)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) throw model_file_error(path.string(), "no such file");
    if (status.type() != std::filesystem::file_type::regular) throw model_file_error(path.string(), "not a regular file");
    if (std::filesystem::file_size(path) > limit) throw model_file_error(path.string(), "larger than " + std::to_string(limit) + " bytes");
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) throw model_file_error(path.string(), "cannot read");
    return text.str();
}

/// Parses a JSON object from a small file: depth-checked, object required, no key repeated.
inline nlohmann::json read_json_object(const std::filesystem::path& path)
{
    const std::string text = read_small_text_file(path);
    if (json_nesting_depth(text) > 64) throw model_file_error(path.string(), "JSON nests deeper than 64 levels");
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) throw model_file_error(path.string(), "not valid JSON");
    if (!j.is_object()) throw model_file_error(path.string(), "not a JSON object");
    if (const auto dup = first_repeated_key(text))
        throw model_file_error(path.string(), "the key \"" + dup->key + "\" appears twice in one object (JSON readers disagree on which one counts)");
    return j;
}

class safetensors_index : public tensor_source {
public:
    explicit safetensors_index(const std::filesystem::path& index_path) : index_(index_path.string())
    {
        const nlohmann::json index = read_json_object(index_path);
        const auto map_it = index.find("weight_map");
        if (map_it == index.end() || !map_it->is_object()) throw model_file_error(index_, "no \"weight_map\" object");
        const auto dir = index_path.parent_path();
        for (const auto& [tensor, shard] : map_it->items()) {
            if (!shard.is_string()) throw model_file_error(index_, tensor, "its shard name is not a string");
            const std::string shard_name = shard.get<std::string>();
            // A NUL would cut the name where the system reads it: another file than the one named.
            if (shard_name.empty() || shard_name.find_first_of(std::string("/\0", 2)) != std::string::npos || shard_name == "." || shard_name == "..")
                throw model_file_error(index_, tensor, "shard name " + nlohmann::json(shard_name).dump() + " is not a plain file name");
            auto it = shards_.find(shard_name);
            if (it == shards_.end()) {
                if (!std::filesystem::exists(dir / shard_name))
                    throw model_file_error(index_, tensor, "its shard '" + shard_name + "' is missing");
                it = shards_.emplace(shard_name, std::make_unique<safetensors_file>(dir / shard_name)).first;
            }
            const tensor_view* t = it->second->find(tensor);
            if (t == nullptr) throw model_file_error(index_, tensor, "the index places it in shard '" + shard_name + "', which lacks it");
            tensors_.emplace(tensor, t);
        }
    }

    [[nodiscard]] const tensor_view* find(const std::string& name) const override
    {
        const auto it = tensors_.find(name);
        return it == tensors_.end() ? nullptr : it->second;
    }
    [[nodiscard]] std::vector<std::string> names() const override
    {
        std::vector<std::string> out;
        for (const auto& [name, t] : tensors_) out.push_back(name);
        return out;
    }
    [[nodiscard]] std::string format() const override { return "safetensors (sharded, " + std::to_string(shards_.size()) + " shards)"; }
    [[nodiscard]] std::string location() const override { return index_; }

private:
    std::string index_;
    std::map<std::string, std::unique_ptr<safetensors_file>> shards_;
    std::map<std::string, const tensor_view*> tensors_;
};

} // namespace qkov::io
