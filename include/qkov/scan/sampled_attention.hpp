// The attention a head predicts on random text once each token's own content is in: the mean field's
// queries and keys (mean_field.hpp) plus, at every position, the centred projection of a random
// token's effective embedding (token_copying.hpp), the query's own token also being its key at
// offset 0. Averaged over seeded draws per query, this is the mean of the softmax, which the softmax
// of the mean field is not (Jensen): content spreads the keys' scores, and a spread gives weight to
// keys the mean field ranks low. Drawing whole tokens rather than Gaussian noise keeps what a noise
// model loses: the query's content moves the offset profile itself (q_c^T R_delta k_bar), the BOS
// key's score moves with the query, and the key at offset 0 is the query's own token.
//
// The draws come from the tokens of the proxy pass's random context (no user data); the averages
// are the ones predict_attention takes (offsets over queries W .. N, BOS over 1 .. N), so the two
// predictions and `qkov detect`'s measurements describe the same queries.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "qkov/circuits/rope_layout.hpp"
#include "qkov/forward/rope_schedule.hpp"
#include "qkov/io/model_config.hpp"
#include "qkov/model/head_weights.hpp"
#include "qkov/numeric/uniform_below.hpp"
#include "qkov/scan/structure_measurement.hpp"
#include "qkov/scan/mean_field.hpp"
#include "qkov/scan/proxy_pass.hpp"
#include "qkov/scan/thin_qr.hpp"

namespace qkov::scan {

/// The content of sampled tokens as one head sees it: rows W_q (x_t - mu_l) and W_k (x_t - mu_l),
/// S x d each, for S tokens' effective embeddings x_t at the head's layer.
struct token_contents {
    matrix queries, keys;
};

/// At most `limit` of the rows of `effective` (every stride-th), centred and projected. Centred on
/// the mean of all rows, or, given each row's position (a model with learned positions, whose
/// residual carries the position), on the mean of the rows at the same position: the mean field
/// already holds each position's part, and content is what a token adds to it.
inline token_contents project_token_contents(const model::head_weights& h, const matrix& effective, std::size_t limit,
                                             const std::vector<std::size_t>& position = {})
{
    const std::size_t n = effective.shape()[0], D = effective.shape()[1];
    if (n == 0 || limit == 0) throw std::invalid_argument("qkov: no tokens to sample content from");
    if (!position.empty() && position.size() != n) throw std::invalid_argument("qkov: a position for every effective embedding is needed");
    const std::size_t stride = n <= limit ? 1 : (n + limit - 1) / limit, rows = (n + stride - 1) / stride;
    const std::size_t groups = position.empty() ? 1 : *std::max_element(position.begin(), position.end()) + 1;
    const auto group_of = [&](std::size_t i) { return position.empty() ? std::size_t{0} : position[i]; };
    matrix mean = xt::zeros<double>({groups, D});
    std::vector<double> count(groups, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        count[group_of(i)] += 1;
        for (std::size_t j = 0; j < D; ++j) mean(group_of(i), j) += effective(i, j);
    }
    for (std::size_t g = 0; g < groups; ++g)
        for (std::size_t j = 0; j < D; ++j) mean(g, j) /= std::max(count[g], 1.0);
    matrix centred({rows, D});
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < D; ++j) centred(r, j) = effective(r * stride, j) - mean(group_of(r * stride), j);
    return {multiply(centred, h.w_q, false, true), multiply(centred, h.w_k, false, true)};
}

namespace detail {
/// q^T R_delta k for the rotation RoPE applies at offset delta, with cos and sin of delta theta_l
/// given per pair: q . k, with each rotated pair's part replaced by its rotated value.
inline double rotated_dot(const double* q, const double* k, std::size_t d, const rope_layout& layout, const double* cosines, const double* sines)
{
    double s = 0;
    for (std::size_t i = 0; i < d; ++i) s += q[i] * k[i];
    for (std::size_t l = 0; l < layout.pairs(); ++l) {
        const std::size_t a = layout.first(l), b = layout.second(l);
        s += (cosines[l] - 1) * (q[a] * k[a] + q[b] * k[b]) + sines[l] * (q[a] * k[b] - q[b] * k[a]);
    }
    return s;
}
} // namespace detail

/// Attention by offset (queries W .. N) and on BOS (queries 1 .. N) of head h on random text: for
/// each query, `samples` draws of a token per position from `c`.
inline predicted_attention<double> sampled_attention(const model::head_weights& h, const proxy_layer& input, bool learned_positions,
                                                     const std::optional<io::rope_config>& rope, const token_contents& c, std::size_t window,
                                                     std::size_t samples = 64)
{
    const std::size_t d = h.w_q.shape()[0], N = input.normed.shape()[0] - 1, S = c.queries.shape()[0];
    if (S == 0 || c.keys.shape()[0] != S || c.queries.shape()[1] != d || c.keys.shape()[1] != d)
        throw std::invalid_argument("qkov: sampled token contents do not match the head");
    const double scale = 1 / std::sqrt(static_cast<double>(d));
    const auto row = [&](std::size_t t) { return vector(xt::view(input.normed, t, xt::all())); };
    // The mean field's query and key at each position: row t of the proxy input for learned
    // positions, mu_l at every content position otherwise, the BOS residual at position 0.
    std::vector<std::vector<double>> query_at(N + 1), key_at(N + 1);
    const auto mean_query = project<double>(h.w_q, h.b_q, input.mean), mean_key = project<double>(h.w_k, h.b_k, input.mean);
    for (std::size_t t = 0; t <= N; ++t) {
        const bool own_row = learned_positions || t == 0;
        query_at[t] = own_row ? project<double>(h.w_q, h.b_q, row(t)) : mean_query;
        key_at[t] = own_row ? project<double>(h.w_k, h.b_k, row(t)) : mean_key;
    }
    const bool rotates = rope && !learned_positions;
    const rope_layout layout{d, rotates ? rope->rotary_dim : 0, rotates ? rope->pairing : rope_pairing::rotate_half};
    std::vector<double> cosines((N + 1) * layout.pairs()), sines(cosines.size());
    if (rotates) {
        const auto theta = forward::rope_theta<double>(*rope);
        for (std::size_t delta = 0; delta <= N; ++delta)
            for (std::size_t l = 0; l < layout.pairs(); ++l)
                cosines[delta * layout.pairs() + l] = std::cos(static_cast<double>(delta) * theta[l]),
                                               sines[delta * layout.pairs() + l] = std::sin(static_cast<double>(delta) * theta[l]);
    }
    predicted_attention<double> p;
    p.by_offset.assign(window + 1, 0.0);
    p.first_query = first_averaged_query(window, N, false), p.last_query = N;
    std::mt19937_64 rng(0);
    std::vector<double> query(d), key(d), weight;
    std::vector<std::size_t> token;
    for (std::size_t m = first_averaged_query(window, N, true); m <= N; ++m) {
        for (std::size_t r = 0; r < samples; ++r) {
            token.resize(m + 1);
            for (std::size_t n = 1; n <= m; ++n) token[n] = numeric::uniform_below(rng, S);
            for (std::size_t i = 0; i < d; ++i) query[i] = query_at[m][i] + c.queries(token[m], i);
            weight.assign(m + 1, 0.0);
            double top = -INFINITY, total = 0;
            for (std::size_t n = 0; n <= m; ++n) {
                for (std::size_t i = 0; i < d; ++i) key[i] = key_at[n][i] + (n == 0 ? 0.0 : c.keys(token[n], i));  // BOS: one fixed token
                const std::size_t at = (m - n) * layout.pairs();
                top = std::max(top, weight[n] = scale * detail::rotated_dot(query.data(), key.data(), d, layout, cosines.data() + at, sines.data() + at));
            }
            for (auto& w : weight) total += w = std::exp(w - top);
            if (m >= p.first_query)
                for (std::size_t delta = 0; delta <= std::min(window, m); ++delta) p.by_offset[delta] += weight[m - delta] / total / static_cast<double>(samples);
            p.bos += weight[0] / total / static_cast<double>(samples);
        }
    }
    for (auto& x : p.by_offset) x /= static_cast<double>(N - p.first_query + 1);
    p.bos /= static_cast<double>(N - first_averaged_query(window, N, true) + 1);
    return p;
}

} // namespace qkov::scan
