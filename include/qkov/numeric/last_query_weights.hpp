// The attention of the last query of a batch over all keys (it sees every key, so no mask), from
// heads with or without RoPE. Only what that one row needs is computed: the keys of all tokens,
// the query of the last token alone (rotated at its position n - 1), one row of scores per head
// and its softmax.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "qkov/circuits/rope_angle_provider.hpp"
#include "qkov/circuits/rope_layout.hpp"
#include "qkov/numeric/attention_pattern.hpp"
#include "qkov/numeric/blas_products.hpp"
#include "qkov/numeric/rope_batch.hpp"
#include "qkov/numeric/shape_errors.hpp"
#include "qkov/numeric/stacked_heads.hpp"

namespace qkov::numeric {

/// Per head, the attention weights of the last token's query over every token's key (scores
/// unscaled). `tokens` is n x D, row t the token at position t; heads with RoPE rotate by
/// `layout` (whose d is the heads' width) with `angles`.
template <angle_schedule_provider Angles>
std::vector<std::vector<double>> last_query_weights(const tensor2<double>& tokens, const stacked_heads& heads,
                                                    const rope_layout& layout, const Angles& angles)
{
    require_shape(tokens.shape()[0] > 0 && tokens.shape()[1] == heads.w_q.shape()[1], "the tokens", tokens,
                  "expected at least one row of the heads' width D = " + std::to_string(heads.w_q.shape()[1]));
    const std::size_t n = tokens.shape()[0], D = tokens.shape()[1], d = heads.head_width;
    tensor2<double> last_token = tensor2<double>::from_shape({1, D});
    std::copy_n(tokens.data() + (n - 1) * D, D, last_token.data());
    const tensor2<double> queries = product(last_token, heads.w_q, transposed::yes);
    const tensor2<double> all_keys = product(tokens, heads.w_k, transposed::yes);
    const std::size_t width = all_keys.shape()[1];
    std::vector<std::vector<double>> weights;
    for (std::size_t h = 0; h < heads.rope.size(); ++h) {
        tensor2<double> query = tensor2<double>::from_shape({1, d});
        tensor2<double> keys = tensor2<double>::from_shape({n, d});
        std::copy_n(queries.data() + h * d, d, query.data());
        for (std::size_t i = 0; i < n; ++i) std::copy_n(all_keys.data() + i * width + h * d, d, keys.data() + i * d);
        if (heads.rope[h]) {
            rotate_rows(query, layout, angles, std::int64_t(n - 1));
            rotate_rows(keys, layout, angles);
        }
        const auto row = attention_pattern(query, keys, 1.0, masking::none);
        weights.emplace_back(row.data(), row.data() + n);
    }
    return weights;
}

/// One head: the stacked computation with a single head.
template <angle_schedule_provider Angles>
std::vector<double> last_query_weights(const tensor2<double>& tokens, const tensor2<double>& w_q, const tensor2<double>& w_k,
                                       bool with_rope, const rope_layout& layout, const Angles& angles)
{
    return last_query_weights(tokens, stack_heads({w_q}, {w_k}, {with_rope}), layout, angles).front();
}

} // namespace qkov::numeric
