// Whether a name beside an untrusted document reaches a plain file: a link could reach another file,
// a directory, FIFO or device is not data. The readers of files a document names (the composition
// tensors, the shards' shared inputs) ask this before they open one, and throw their own error.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <system_error>

namespace qkov::io {

/// Why `path` is not a plain file ("no such file", "not a regular file (...)"), or nullopt when it is.
inline std::optional<std::string> not_a_plain_file(const std::filesystem::path& path)
{
    std::error_code ec;
    const auto status = std::filesystem::symlink_status(path, ec);
    if (ec || status.type() == std::filesystem::file_type::not_found) return "no such file";
    if (status.type() != std::filesystem::file_type::regular) return "not a regular file (a link, a directory or a device)";
    return std::nullopt;
}

} // namespace qkov::io
