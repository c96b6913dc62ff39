// The SHA-256 of a file's bytes, read through a map (a file of any size, one page at a time): how
// a document checks that a file it names beside it is the one written with it.
#pragma once

#include <filesystem>
#include <string>

#include "qkov/io/mapped_file.hpp"
#include "qkov/io/sha256.hpp"

namespace qkov::io {

inline std::string file_sha256(const std::filesystem::path& path)
{
    const mapped_file map(path);
    const auto bytes = map.bytes();
    return sha256().update(bytes.data(), bytes.size()).hex();
}

} // namespace qkov::io
