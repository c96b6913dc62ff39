// A shard-inputs directory (scan/shard_inputs.hpp) for the harnesses: a fixed identity, one
// directory per process, and a read of everything a manifest there names, for a model of width 2
// and vocabulary 4: layer 1's rows (3 proxy rows, 2 token rows, 0 or 1 calibration rows) and the
// circuit writes of a shard starting at layer 1 (2 offsets of 3 tokens, heads below 2). Either a
// named error or inputs of exactly those shapes.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/io/model_file_error.hpp"
#include "qkov/scan/shard_inputs.hpp"

inline const nlohmann::json& fuzz_shard_identity()
{
    static const nlohmann::json identity = {{"model", {{"layers", 2}, {"hidden_size", 2}}}, {"options", {{"search_circuits", true}}}};
    return identity;
}

inline std::filesystem::path fuzz_shard_directory()
{
    static const auto dir = std::filesystem::temp_directory_path() / ("qkov-fuzz-shard-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return dir;
}

inline void read_fuzz_shard_inputs(const std::filesystem::path& dir)
{
    try {
        const qkov::scan::shard_inputs_reader reader(dir, fuzz_shard_identity());
        if (const auto side = reader.common(2, 4); side && (!side->tokens || side->tokens->g.shape()[0] != 2)) __builtin_trap();
        for (const std::size_t calibration : {0, 1}) {
            try {
                const auto inputs = reader.layer(1, 3, 2, calibration, 2);
                if (inputs.proxy.shape()[0] != 3 || inputs.readout.shape()[0] != 2 || inputs.calibration.has_value() != (calibration > 0)) __builtin_trap();
            } catch (const qkov::scan::shard_inputs_error&) {
            } catch (const qkov::io::model_file_error&) {
            }
        }
        try {
            const auto writes = reader.circuit_writes(1, 2, 3, 2, 2);
            if (writes.by_offset.size() != 2 || writes.by_offset[1].shape()[0] != 3) __builtin_trap();
        } catch (const qkov::scan::shard_inputs_error&) {
        } catch (const qkov::io::model_file_error&) {
        }
    } catch (const qkov::scan::shard_inputs_error&) {
    } catch (const qkov::io::model_file_error&) {
    }
}
