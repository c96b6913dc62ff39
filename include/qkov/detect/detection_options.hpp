// What a caller asks of a detection (head_detection.hpp runs it): the sequences, the samples, the
// seed, BOS, the behaviour threshold, whether to measure copying and how much memory it may take,
// and the progress callback. Options only: building them needs none of the forward pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include "qkov/forward/token_id.hpp"

namespace qkov::detect {

using forward::token_id;

/// The most samples a detection takes, in the tool (qkov detect --samples) and in Python alike: far
/// past where the spread of a score stops shrinking, and a bound on the run's time.
inline constexpr std::size_t largest_samples = 100000;

struct detection_options {
    std::size_t length = 50;              ///< |r|: the sequence is 2 |r| + 1 tokens
    std::size_t samples = 10;             ///< independent draws of r
    std::uint64_t seed = 0;               ///< of std::mt19937_64; sample k continues the same generator
    std::optional<token_id> bos{};        ///< unset: the model's own (model_config::bos_token_id)
    double behaviour_fraction = 0.5;      ///< a head shows a behaviour at this fraction of its attainable score
    bool copying = true;                  ///< measure copying when the pass can (copying_source)
    std::size_t copying_memory = std::size_t{1} << 30;  ///< bytes the heads' outputs kept until they are ranked may take
    std::function<void(std::size_t done, std::size_t samples)> on_sample{};  ///< progress, after each sample
    std::function<void(std::size_t done, std::size_t layers)> on_copying_layer{};  ///< progress of the copying's ranking, after each layer
};

} // namespace qkov::detect
