// Per-token copying: for each token t, does the head, reading t, raise t above every other token?
//
// The eigenvalue score (copying_score.hpp, claim K2) says the OV circuit raises what it reads *in
// aggregate*; it does not say how many tokens a head copies. Here each token t is read the way the
// head reads it, its effective embedding x_t (proxy_pass.hpp: the normed input of the head's layer
// on [BOS, t], after every earlier block), and the head's output goes out the way the model reads
// it, through the final norm's scale and the unembedding:
//   row_t = W_U diag(g_f) C W_o (W_v x_t + b_v)         (column convention, V logits)
// C centres the output for a final LayerNorm (its mean subtraction), and is I for RMSNorm. The
// final norm's 1 / rms is one positive number per position and the unembedding's shared shift one
// number per row: neither changes a rank or the sign of a margin, so they are left out. Per token:
// is t the top-1 of its own row, in its top 5, in its bottom 10; the margin
// row_t[t] - max_{j != t} row_t[j] in units of the row's standard deviation.
//
// Cost: per head one V x d product (W_U diag(g_f) C W_o) and one (tokens x d) (d x V) product, in
// blocks of tokens. Large vocabularies are sampled (every ceil(V / 4,096)-th token: at most 4,096,
// 3,866 of GPT-2's 50,257) and the shares get a Wilson 95 % interval.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "qkov/forward/forward_pass.hpp"
#include "qkov/model/head_weights.hpp"
#include "qkov/scan/proxy_pass.hpp"
#include "qkov/scan/thin_qr.hpp"

namespace qkov::scan {

struct token_copying {
    std::size_t tokens = 0, vocabulary = 0;  ///< tokens read (all of V, or a strided sample)
    double top1_share = 0, top5_share = 0, bottom10_share = 0;
    std::pair<double, double> top1_interval{0, 1}, bottom10_interval{0, 1};  ///< Wilson 95 % (exact share when every token is read)
    double median_margin = 0;  ///< (row_t[t] - max_{j != t} row_t[j]) / std(row_t), median over the tokens
    std::vector<bool> top1;    ///< per token read: the top-1 of its own row (for the union over a layer's heads)
};

/// Wilson's 95 % score interval for k successes in n draws.
inline std::pair<double, double> wilson_interval(std::size_t k, std::size_t n)
{
    if (n == 0) return {0.0, 1.0};
    constexpr double z = 1.959963984540054;
    const double p = static_cast<double>(k) / static_cast<double>(n), nn = static_cast<double>(n);
    const double centre = (p + z * z / (2 * nn)) / (1 + z * z / nn);
    const double half = z / (1 + z * z / nn) * std::sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn));
    return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

/// What the per-token test needs of a model, computed once: the read-out W_U diag(g_f) (V x D),
/// whether the final norm centres, the tokens read and their effective embeddings per layer.
struct token_readout {
    matrix readout;                    ///< V x D
    bool centres = false;              ///< final LayerNorm: the head's output is centred first
    std::vector<std::size_t> tokens;   ///< the tokens read
    std::vector<matrix> effective;     ///< per layer: tokens.size() x D
    std::vector<std::size_t> position; ///< per token read: its position in the random context
    std::size_t vocabulary = 0;
};

/// Every token when V <= limit, else every stride-th one (stride = ceil(V / limit)).
inline std::vector<std::size_t> copying_tokens(std::size_t V, std::size_t limit)
{
    const std::size_t stride = V <= limit ? 1 : (V + limit - 1) / limit;
    std::vector<std::size_t> out;
    for (std::size_t t = 0; t < V; t += stride) out.push_back(t);
    return out;
}

inline token_readout read_token_readout(const forward::decoder<double>& pass, std::optional<std::size_t> bos, std::size_t token_limit, std::size_t context)
{
    const auto& w = pass.weights();
    const auto& u = w.output_embedding();
    const std::size_t V = u.shape()[0], D = u.shape()[1];
    token_readout r;
    r.vocabulary = V;
    r.centres = w.final_norm.kind == io::norm_kind::layer_norm;
    const double plus = w.final_norm.kind == io::norm_kind::rms_norm_plus_one ? 1.0 : 0.0;
    r.readout = xt::empty<double>({V, D});
    for (std::size_t t = 0; t < V; ++t)
        for (std::size_t j = 0; j < D; ++j) r.readout(t, j) = u(t, j) * (plus + w.final_norm.weight[j]);
    r.tokens = copying_tokens(V, token_limit);
    auto inputs = effective_embeddings(pass, bos, r.tokens, context);
    r.effective = std::move(inputs.rows), r.position = std::move(inputs.position);
    return r;
}

/// The per-token copying of head h (layer h.layer) against the model's read-out.
inline token_copying copying_per_token(const model::head_weights& h, const token_readout& r, std::size_t block_tokens = 512)
{
    const std::size_t D = h.w_o.shape()[0], d = h.w_o.shape()[1], V = r.vocabulary, T = r.tokens.size();
    // C W_o: centring a column removes its mean (the LayerNorm's mean of the head's output).
    matrix w_o = h.w_o;
    if (r.centres)
        for (std::size_t i = 0; i < d; ++i) {
            double mean = 0;
            for (std::size_t j = 0; j < D; ++j) mean += w_o(j, i);
            mean /= static_cast<double>(D);
            for (std::size_t j = 0; j < D; ++j) w_o(j, i) -= mean;
        }
    const matrix out = multiply(r.readout, w_o);  // V x d
    const matrix& x = r.effective.at(h.layer);
    matrix values = multiply(x, h.w_v, false, true);  // T x d
    if (h.b_v.size())
        for (std::size_t i = 0; i < T; ++i)
            for (std::size_t c = 0; c < d; ++c) values(i, c) += h.b_v(c);
    token_copying result;
    result.tokens = T, result.vocabulary = V;
    std::size_t top1 = 0, top5 = 0, bottom10 = 0;
    std::vector<double> margins;
    for (std::size_t first = 0; first < T; first += block_tokens) {
        const std::size_t n = std::min(block_tokens, T - first);
        const matrix block = xt::view(values, xt::range(first, first + n), xt::all());
        const matrix logits = multiply(block, out, false, true);  // n x V
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t t = r.tokens[first + i];
            const double* row = logits.data() + i * V;
            const double own = row[t];
            std::size_t above = 0, below = 0;
            double best_other = -INFINITY, sum = 0, square = 0;
            for (std::size_t j = 0; j < V; ++j) {
                sum += row[j];
                if (j == t) continue;
                above += row[j] >= own ? 1 : 0;
                below += row[j] < own ? 1 : 0;
                best_other = std::max(best_other, row[j]);
            }
            const double mean = sum / static_cast<double>(V);
            for (std::size_t j = 0; j < V; ++j) square += (row[j] - mean) * (row[j] - mean);
            const double spread = std::sqrt(square / static_cast<double>(V));
            top1 += above == 0 ? 1 : 0;
            result.top1.push_back(above == 0);
            top5 += above < 5 ? 1 : 0;
            bottom10 += below < 10 ? 1 : 0;
            margins.push_back(spread > 0 ? (own - best_other) / spread : 0.0);
        }
    }
    const double n = static_cast<double>(std::max<std::size_t>(T, 1));
    result.top1_share = static_cast<double>(top1) / n, result.top5_share = static_cast<double>(top5) / n;
    result.bottom10_share = static_cast<double>(bottom10) / n;
    if (T == V) {
        result.top1_interval = {result.top1_share, result.top1_share}, result.bottom10_interval = {result.bottom10_share, result.bottom10_share};
    } else {
        result.top1_interval = wilson_interval(top1, T), result.bottom10_interval = wilson_interval(bottom10, T);
    }
    if (!margins.empty()) {
        std::nth_element(margins.begin(), margins.begin() + static_cast<std::ptrdiff_t>(margins.size() / 2), margins.end());
        result.median_margin = margins[margins.size() / 2];
    }
    return result;
}

} // namespace qkov::scan
