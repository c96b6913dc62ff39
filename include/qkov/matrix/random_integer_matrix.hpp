// Reproducible pseudo-random integer matrices, usable in constant evaluation, for exact instance
// proofs ("for these 64 x 16 factors the rank is exactly 16"). The generator is SplitMix64
// (Steele, Lea, Flood 2014): tiny, constexpr, and statistically good enough for test instances.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "qkov/matrix/matrix.hpp"
#include "qkov/scalar/native_integer.hpp"

namespace qkov {

class splitmix64 {
public:
    constexpr explicit splitmix64(std::uint64_t seed) : state_(seed) {}
    constexpr std::uint64_t next()
    {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    /// Uniform in [lo, hi] (the modulo bias is irrelevant for test instances).
    constexpr std::int64_t uniform(std::int64_t lo, std::int64_t hi)
    {
        if (lo > hi) throw std::invalid_argument("qkov: splitmix64::uniform needs lo <= hi");
        // Unsigned arithmetic: hi - lo may exceed INT64_MAX, and the full range has 2^64 values.
        const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
        const std::uint64_t offset = span == UINT64_MAX ? next() : next() % (span + 1);
        return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + offset);
    }

private:
    std::uint64_t state_;
};

/// Entries uniform in [lo, hi], drawn row by row from SplitMix64(seed). The bounds are integers
/// of any width that fit 64 bits (checked, not cast); each entry becomes a T through T's own
/// constructor, which range-checks it (checked integers) or refuses it.
template <class T, std::size_t R, std::size_t C, native_integer Lo, native_integer Hi>
constexpr matrix<T, R, C> random_integer_matrix(std::uint64_t seed, Lo lo_in, Hi hi_in)
{
    if (!fits_in<std::int64_t>(lo_in) || !fits_in<std::int64_t>(hi_in))
        throw std::invalid_argument("qkov: random_integer_matrix bounds must fit 64-bit signed integers");
    const auto lo = static_cast<std::int64_t>(lo_in), hi = static_cast<std::int64_t>(hi_in);
    splitmix64 gen(seed);
    matrix<T, R, C> m;
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) m(i, j) = T(gen.uniform(lo, hi));
    return m;
}

} // namespace qkov
