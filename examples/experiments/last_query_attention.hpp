// R10's measurement: the attention of the last query of a batch over all keys (it sees every key,
// so no mask), from a head with or without RoPE. Only what that one row needs is computed: the
// keys of all tokens, the query of the last token alone (rotated at its position N - 1), one row
// of scores and its softmax. Shared by the R10 example and the benchmark against numpy.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "previous_token_head.hpp"
#include "qkov/numeric/attention_pattern.hpp"
#include "qkov/numeric/tabulated_angles.hpp"

namespace qkov::experiments {

/// The seed's angles (seed_angles) at positions 0 .. n-1, evaluated once for all heads of a sweep.
inline numeric::tabulated_angles<numeric_angles<double, seed_head_width / 2>> seed_angle_table(std::size_t n)
{
    return {seed_angles<double>(), 0, n};
}

/// Weights of the last token's query over keys 0 .. N-1; `angles` provides the seed's angles
/// (seed_angles() or a seed_angle_table).
template <class Angles>
std::vector<double> last_query_weights(const numeric::tensor2<double>& tokens, const numeric::tensor2<double>& w_q,
                                       const numeric::tensor2<double>& w_k, bool with_rope, const Angles& angles)
{
    const std::size_t n = tokens.shape()[0], D = tokens.shape()[1];
    numeric::tensor2<double> last_token = numeric::tensor2<double>::from_shape({1, D});
    std::copy_n(tokens.data() + (n - 1) * D, D, last_token.data());
    numeric::tensor2<double> query = numeric::product(last_token, w_q, numeric::transposed::yes);
    numeric::tensor2<double> keys = numeric::product(tokens, w_k, numeric::transposed::yes);
    if (with_rope) {
        numeric::rotate_rows(query, seed_layout, angles, std::int64_t(n - 1));
        numeric::rotate_rows(keys, seed_layout, angles);
    }
    const auto row = numeric::attention_pattern(query, keys, 1.0, numeric::masking::none);
    return {row.data(), row.data() + n};
}

} // namespace qkov::experiments
