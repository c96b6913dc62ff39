// The positional QK circuit of a model with learned absolute positions (GPT-2's W_pos): which
// offset a head prefers when only position, and the constant part of the tokens, feed its score.
//
// Inputs x_n = p_n + e_mean (the position embedding plus the mean token embedding, or p_n alone
// when the file has no token embedding) go through the layer's norm; q_n = W_q x^_n + b_q and
// k_n likewise; the query at m weighs keys n <= m by softmax(q_m . k_n / sqrt(d)). For every query
// m >= 1 the best key gives an offset m - n; the head's preferred offset is the most frequent
// one, with the share of queries that pick it and the mean softmax weight it gets. This is the
// score's positional part only, through the norm as if nothing else were in the residual stream
// (the evidence says so); a head's content may still override it.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>

#include "qkov/model/head_weights.hpp"
#include "qkov/numeric/attention_scores.hpp"
#include "qkov/scan/thin_qr.hpp"

namespace qkov::scan {

struct position_preference {
    std::size_t offset = 0;     ///< the most frequent best offset over the queries
    double query_share = 0;     ///< share of queries 1 .. N-1 whose best key is at that offset
    double mean_weight = 0;     ///< mean softmax weight the queries give the key at that offset
    std::size_t queries = 0;    ///< N - 1
    bool with_tokens = false;   ///< the mean token embedding was added to the positions
};

/// `normed` is N x D: the inputs above through the layer's norm (row n for position n).
inline position_preference learned_position_preference(const model::head_weights& h, const matrix& normed)
{
    const std::size_t N = normed.shape()[0], d = h.w_q.shape()[0];
    position_preference out;
    if (N < 2) return out;
    const matrix q_plain = multiply(normed, h.w_q, false, true), k_plain = multiply(normed, h.w_k, false, true);  // N x d
    auto q = numeric::tensor2<double>::from_shape({N, d}), k = numeric::tensor2<double>::from_shape({N, d});
    for (std::size_t n = 0; n < N; ++n)
        for (std::size_t i = 0; i < d; ++i) {
            q(n, i) = q_plain(n, i) + (h.b_q.size() == d ? h.b_q(i) : 0.0);
            k(n, i) = k_plain(n, i) + (h.b_k.size() == d ? h.b_k(i) : 0.0);
        }
    // The run-time layer's causal scores: only the blocks on or below the diagonal are computed.
    const auto scores = numeric::attention_scores(q, k, 1.0, numeric::masking::causal);
    const double scale = 1 / std::sqrt(static_cast<double>(d));
    std::map<std::size_t, std::size_t> best_offsets;
    // Per query m: its top score and its softmax normaliser; the weight of one key is then
    // exp((s - top) scale) / total, so the N^2 / 2 weights are never stored.
    std::vector<double> top(N, -INFINITY), total(N, 0.0);
    for (std::size_t m = 1; m < N; ++m) {
        const double* row = &scores(m, 0);
        std::size_t best = 0;
        for (std::size_t n = 0; n <= m; ++n)
            if (row[n] > top[m]) top[m] = row[n], best = n;
        ++best_offsets[m - best];
        for (std::size_t n = 0; n <= m; ++n) total[m] += std::exp((row[n] - top[m]) * scale);
    }
    const auto mode = std::max_element(best_offsets.begin(), best_offsets.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    out.offset = mode->first;
    out.queries = N - 1;
    out.query_share = static_cast<double>(mode->second) / static_cast<double>(out.queries);
    double sum = 0;
    std::size_t counted = 0;
    for (std::size_t m = std::max<std::size_t>(1, out.offset); m < N; ++m)
        sum += std::exp((scores(m, m - out.offset) - top[m]) * scale) / total[m], ++counted;
    out.mean_weight = counted ? sum / static_cast<double>(counted) : 0.0;
    return out;
}

} // namespace qkov::scan
