// libFuzzer input as a file: the model readers map files (they never take a buffer), so each
// input is written to one per-process temporary file and read back through the real path.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

inline std::filesystem::path fuzz_input_file(const std::uint8_t* data, std::size_t size, const char* extension)
{
    static const auto path =
        std::filesystem::temp_directory_path() / ("qkov-fuzz-" + std::to_string(::getpid()) + extension);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return path;
}
