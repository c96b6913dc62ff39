// The attention a head predicts on random text once each token's own content is in: the mean field's
// queries and keys (mean_field.hpp) plus, at every position, the centred projection of a random
// token's effective embedding (token_copying.hpp), the query's own token also being its key at
// offset 0. Averaged over seeded draws per query, this is the mean of the softmax, which the softmax
// of the mean field is not (Jensen): content spreads the keys' scores, and a spread gives weight to
// keys the mean field ranks low. Drawing whole tokens rather than Gaussian noise keeps what a noise
// model loses: the query's content moves the offset profile itself (q_c^T R_delta k_bar), the BOS
// key's score moves with the query, and the key at offset 0 is the query's own token.
//
// The key just before the query is the query token's own predecessor where the rows say which it
// was: earlier heads copy the previous token into a position, so a query and its previous key are
// not independent, and a head can attend to the previous token through that (on stories260K's 2.2
// it is 0.02 of the previous-token score; docs/SCAN-LABELS.md).
//
// The draws come from the tokens of the proxy pass's random context (no user data); the averages
// are the ones predict_attention takes (offsets over queries W .. N, BOS and the previous-token
// score over 1 .. N), so the two
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
#include "qkov/scan/token_contents.hpp"

namespace qkov::scan {

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

/// Attention by offset (queries W .. N), on BOS and on the previous key (queries 1 .. N) of head h on
/// random text: for each query, `samples` draws of a token per position from `c`. Where `c` knows
/// each row's predecessor, the key before the query is the query token's own predecessor: the one
/// its effective embedding was read after, whose content earlier heads copied into it (the query
/// at position 1 is drawn from the rows read right after BOS, the others from the rows read after
/// a token). The other keys are drawn independently.
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
    // The rows a query is drawn from: after BOS (position 1) and after a token (positions 2 .. N).
    const bool paired = !c.after.empty();
    if (paired && (c.after.size() != S || c.previous_keys.shape()[0] != S || c.previous_keys.shape()[1] != d))
        throw std::invalid_argument("qkov: the predecessors' key contents do not match the sampled tokens");
    std::vector<std::size_t> after_bos, after_token;
    for (std::size_t i = 0; paired && i < S; ++i) (c.after[i] ? after_token : after_bos).push_back(i);
    const auto draw_query = [&](std::size_t m, std::mt19937_64& g) {
        const auto& from = m == 1 ? after_bos : after_token;
        return paired && !from.empty() ? from[numeric::uniform_below(g, from.size())] : numeric::uniform_below(g, S);
    };
    predicted_attention<double> p;
    p.by_offset.assign(window + 1, 0.0);
    p.first_query = first_averaged_query(window, N, false), p.last_query = N;
    std::mt19937_64 rng(0);
    std::vector<double> query(d), key(d), weight;
    std::vector<std::size_t> token;
    for (std::size_t m = first_averaged_query(window, N, true); m <= N; ++m) {
        for (std::size_t r = 0; r < samples; ++r) {
            token.resize(m + 1);
            for (std::size_t n = 1; n < m; ++n) token[n] = numeric::uniform_below(rng, S);
            token[m] = draw_query(m, rng);
            const bool own_predecessor = paired && m >= 2 && c.after[token[m]];  // m >= 2: a key sits between BOS and the query
            for (std::size_t i = 0; i < d; ++i) query[i] = query_at[m][i] + c.queries(token[m], i);
            weight.assign(m + 1, 0.0);
            double top = -INFINITY, total = 0;
            for (std::size_t n = 0; n <= m; ++n) {
                const auto content = [&](std::size_t i) {
                    if (n == 0) return 0.0;  // BOS: one fixed token
                    return own_predecessor && n + 1 == m ? c.previous_keys(token[m], i) : c.keys(token[n], i);
                };
                for (std::size_t i = 0; i < d; ++i) key[i] = key_at[n][i] + content(i);
                const std::size_t at = (m - n) * layout.pairs();
                top = std::max(top, weight[n] = scale * detail::rotated_dot(query.data(), key.data(), d, layout, cosines.data() + at, sines.data() + at));
            }
            for (auto& w : weight) total += w = std::exp(w - top);
            if (m >= p.first_query)
                for (std::size_t delta = 0; delta <= std::min(window, m); ++delta) p.by_offset[delta] += weight[m - delta] / total / static_cast<double>(samples);
            p.bos += weight[0] / total / static_cast<double>(samples);
            if (m >= 1) p.previous += weight[m - 1] / total / static_cast<double>(samples);  // m = 0 only when no position follows BOS
        }
    }
    for (auto& x : p.by_offset) x /= static_cast<double>(N - p.first_query + 1);
    p.bos /= static_cast<double>(N - first_averaged_query(window, N, true) + 1);
    p.previous /= static_cast<double>(N - first_averaged_query(window, N, true) + 1);
    return p;
}

} // namespace qkov::scan
