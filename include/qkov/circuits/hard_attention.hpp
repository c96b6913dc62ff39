// Attention patterns with all weight on one token (the alpha -> infinity limit of a softmax
// head), and the residual update of a head with such a pattern. Column convention: tokens are
// columns; pattern(i, j) is the weight that destination token j puts on source token i, so a
// head adds W_net X A to the residual stream X (W_net = W_out W_V). Note the orientation:
// attention_scores() (qk_ov.hpp) has row = query, so a pattern is the transpose of the
// column-wise softmax of the scores.
#pragma once

#include <cstddef>

#include <stdexcept>

#include "qkov/matrix/matrix.hpp"
#include "qkov/scalar/native_integer.hpp"

namespace qkov {

/// Every token attends to the token `lag` positions back (tokens with no such token get nothing).
/// The lag is a non-negative integer of any type, taken exactly: -1 or 1.5 is refused, not
/// turned into a huge lag or into 1.
template <class T, std::size_t n, native_integer Lag>
constexpr matrix<T, n, n> lagged_token_pattern(Lag lag_in)
{
    const std::size_t lag = index_value(lag_in);
    matrix<T, n, n> a;
    for (std::size_t j = lag; j < n; ++j) a(j - lag, j) = T(1);
    return a;
}

/// X + W_net X A: one attention layer with a fixed pattern A, added to the residual stream.
template <class T, std::size_t D, std::size_t n>
constexpr matrix<T, D, n> apply_head(const matrix<T, D, D>& w_net, const matrix<T, n, n>& pattern,
                                     const matrix<T, D, n>& residual)
{
    return residual + w_net * residual * pattern;
}

} // namespace qkov
