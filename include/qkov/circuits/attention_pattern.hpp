// The causal softmax attention pattern of N tokens, generic over the scalar (exact exp is not
// needed: double, Boost.Multiprecision, and certified intervals, whose exp encloses).
#pragma once

#include <cmath>
#include <cstddef>

#include "qkov/matrix/matrix.hpp"

namespace qkov {

/// A(i, j) = exp(s(i, j) - c_i) / sum_{j' <= i} exp(s(i, j') - c_i) for j <= i, and 0 above the
/// diagonal, with s(i, j) = score(i, j) and c_i = reference(i). c_i cancels mathematically; it is
/// there so that exp never overflows: pass a number near the largest score of row i (for
/// intervals an overflow would not be wrong, only useless: an infinite enclosure).
template <class T, std::size_t N, class Score, class Reference>
constexpr matrix<T, N, N> causal_softmax(Score score, Reference reference)
{
    using std::exp;
    matrix<T, N, N> pattern;
    for (std::size_t i = 0; i < N; ++i) {
        const T c = reference(i);
        T total = T(0);
        for (std::size_t j = 0; j <= i; ++j) {
            pattern(i, j) = exp(score(i, j) - c);
            total += pattern(i, j);
        }
        for (std::size_t j = 0; j <= i; ++j) pattern(i, j) = pattern(i, j) / total;
    }
    return pattern;
}

} // namespace qkov
