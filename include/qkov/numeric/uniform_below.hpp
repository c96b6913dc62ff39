// A seeded bounded integer that is the same on every platform: std::mt19937_64's output is fixed by
// the standard, std::uniform_int_distribution's algorithm is not. The detectors' token draw
// (detect/repeated_tokens.hpp) and the scan's random context (scan/proxy_pass.hpp) use it.
#pragma once

#include <cstdint>
#include <random>

namespace qkov::numeric {

/// A uniform integer in [0, bound), bound >= 1, without modulo bias.
inline std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t bound)
{
    const std::uint64_t limit = std::mt19937_64::max() - std::mt19937_64::max() % bound;  // a multiple of bound
    for (;;)
        if (const std::uint64_t x = rng(); x < limit) return x % bound;
}

} // namespace qkov::numeric
