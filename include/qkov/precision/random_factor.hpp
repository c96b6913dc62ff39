// Random factors for the validations: entries k / 1048573 with |k| <= 2^20 (SplitMix64), on the
// heap. The divisor is a prime, not a power of two: with dyadic entries of 21 bits, products and
// short sums are exact at 50-100 digits and many identities would hold with residual 0, so the
// validation would measure nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "qkov/matrix/matrix.hpp"
#include "qkov/matrix/random_integer_matrix.hpp"
#include "qkov/precision/heap.hpp"

namespace qkov::precision {

template <class T, std::size_t R, std::size_t C>
std::unique_ptr<matrix<T, R, C>> random_factor(std::uint64_t seed)
{
    auto m = on_heap([&] { return random_integer_matrix<T, R, C>(seed, -(1 << 20), 1 << 20); });
    *m *= T(1) / T(1048573);
    return m;
}

} // namespace qkov::precision
