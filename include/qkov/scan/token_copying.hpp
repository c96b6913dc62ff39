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
// Cost: per head one V x D x d product (W_U diag(g_f) C W_o) and one (tokens x d) (d x V) product,
// in blocks of vocabulary rows read from the file, the heads of a layer on the --threads workers.
// The row's spread is summed block by block, shifted by the token's own logit. Large vocabularies
// are sampled (every ceil(V / 4,096)-th token: at most 4,096, 3,866 of GPT-2's 50,257) and the
// shares get a Wilson 95 % interval.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "qkov/forward/forward_pass.hpp"
#include "qkov/model/head_weights.hpp"
#include "qkov/numeric/parallel_blocks.hpp"
#include "qkov/scan/embedding_sample.hpp"
#include "qkov/scan/proxy_pass.hpp"
#include "qkov/scan/thin_qr.hpp"
#include "qkov/scan/token_copying_result.hpp"

namespace qkov::scan {

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

/// What the per-token test needs of a model, computed once: the final norm's scale g_f (the
/// read-out is W_U diag(g_f), read a block of vocabulary rows at a time through the pass, never
/// V x D at once), whether the final norm centres, the tokens read, their read-out rows and their
/// effective embeddings per layer.
struct token_readout {
    std::vector<double> scale;         ///< D: g_f (1 + g_f for Gemma's kind)
    bool centres = false;              ///< final LayerNorm: the head's output is centred first
    std::vector<std::size_t> tokens;   ///< the tokens read
    matrix token_rows;                 ///< tokens.size() x D: their rows of W_U diag(g_f)
    effective_inputs effective;        ///< per layer, tokens.size() x D, as the pass reaches the layer; each token's position in its context
    std::size_t vocabulary = 0;
};

/// Every token when V <= limit, else every stride-th one (stride = ceil(V / limit)).
inline std::vector<std::size_t> copying_tokens(std::size_t V, std::size_t limit)
{
    const std::size_t stride = sample_stride(V, limit);
    std::vector<std::size_t> out;
    for (std::size_t t = 0; t < V; t += stride) out.push_back(t);
    return out;
}

/// Rows of the unembedding times the final norm's scale, in place.
inline void scale_columns(matrix& rows, const std::vector<double>& scale)
{
    const std::size_t n = rows.shape()[0], D = rows.shape()[1];
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t j = 0; j < D; ++j) rows(t, j) *= scale[j];
}

inline token_readout read_token_readout(const forward::decoder<double>& pass, std::optional<std::size_t> bos, std::size_t token_limit, std::size_t context)
{
    const auto& w = pass.weights();
    const std::size_t V = pass.vocabulary(), D = pass.config().hidden_size;
    token_readout r;
    r.vocabulary = V;
    r.centres = w.final_norm.kind == io::norm_kind::layer_norm;
    for (std::size_t j = 0; j < D; ++j) r.scale.push_back(w.final_norm.weight[j]);
    r.tokens = copying_tokens(V, token_limit);
    r.token_rows = xt::empty<double>({r.tokens.size(), D});
    std::size_t next = 0;  // the tokens are ascending: each block holds the next few
    pass.for_each_output_block([&](std::size_t first, const numeric::tensor2<double>& rows) {
        for (; next < r.tokens.size() && r.tokens[next] < first + rows.shape()[0]; ++next)
            std::copy_n(rows.data() + (r.tokens[next] - first) * D, D, r.token_rows.data() + next * D);
    });
    scale_columns(r.token_rows, r.scale);
    r.effective = effective_embeddings(pass, bos, r.tokens, context);
    return r;
}

namespace detail {

/// One head's running counts over the blocks of its rows: per token read, how many other tokens
/// score at least its own logit, how many below, the best other, and the sums for the row's spread
/// (shifted by the token's own logit, which lies inside the row, so the sum of squares does not
/// cancel). The entries arrive a vocabulary token at a time for a run of tokens read, so that the
/// loop runs along the tokens read, each with its own counters, and vectorises; each token read
/// still sums its row in vocabulary order. The counts are kept in doubles (exact below 2^53):
/// x86-64's baseline vector instructions turn a comparison into a double, not into a 64-bit integer.
struct copying_tally {
    std::vector<double> own;  ///< row_t[t]
    std::vector<double> above, below, best_other, shifted_sum, shifted_square;

    explicit copying_tally(std::vector<double> own_logits)
        : own(std::move(own_logits)), above(own.size()), below(own.size()), best_other(own.size(), -INFINITY), shifted_sum(own.size()),
          shifted_square(own.size())
    {
    }

    /// n rows' entries x[i] of tokens other than their own: the arrays do not overlap (__restrict
    /// lets the loop vectorise without a run-time overlap test).
    static void count_others(std::size_t n, const double* __restrict x, const double* __restrict own, double* __restrict sum,
                             double* __restrict square, double* __restrict above, double* __restrict below, double* __restrict best)
    {
        for (std::size_t i = 0; i < n; ++i) {
            const double shifted = x[i] - own[i];
            sum[i] += shifted, square[i] += shifted * shifted;
            above[i] += x[i] >= own[i] ? 1.0 : 0.0;
            below[i] += x[i] < own[i] ? 1.0 : 0.0;
            best[i] = x[i] > best[i] ? x[i] : best[i];
        }
    }

    /// Vocabulary token `token`'s entries in the rows of tokens read i0 .. i0 + m: logit[i] is row
    /// i0 + i's, and read[i] the token that row reads, ascending (copying_tokens). The row that
    /// reads `token` itself gains the sums but not the counts: its entry is not another token's.
    void add(std::size_t token, std::size_t i0, std::size_t m, const double* logit, const std::size_t* read)
    {
        const std::size_t self = static_cast<std::size_t>(std::lower_bound(read, read + m, token) - read);
        const bool read_here = self < m && read[self] == token;
        const auto others = [&](std::size_t from, std::size_t to) {
            const std::size_t at = i0 + from;
            count_others(to - from, logit + from, own.data() + at, shifted_sum.data() + at, shifted_square.data() + at, above.data() + at,
                         below.data() + at, best_other.data() + at);
        };
        if (!read_here) return others(0, m);
        others(0, self);
        const double shifted = logit[self] - own[i0 + self];
        shifted_sum[i0 + self] += shifted, shifted_square[i0 + self] += shifted * shifted;
        others(self + 1, m);
    }
};

inline token_copying copying_of(const copying_tally& tally, std::size_t V)
{
    const std::size_t T = tally.own.size();
    token_copying result;
    result.tokens = T, result.vocabulary = V;
    std::size_t top1 = 0, top5 = 0, bottom10 = 0;
    std::vector<double> margins;
    for (std::size_t i = 0; i < T; ++i) {
        const double mean = tally.shifted_sum[i] / static_cast<double>(V);
        const double spread = std::sqrt(std::max(0.0, tally.shifted_square[i] / static_cast<double>(V) - mean * mean));
        top1 += tally.above[i] == 0 ? 1 : 0;
        result.top1.push_back(tally.above[i] == 0);
        top5 += tally.above[i] < 5 ? 1 : 0;
        bottom10 += tally.below[i] < 10 ? 1 : 0;
        margins.push_back(spread > 0 ? (tally.own[i] - tally.best_other[i]) / spread : 0.0);
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

} // namespace detail

/// The per-token copying of every head of one layer (the heads' layer) against the model's read-out,
/// in one pass over the vocabulary: per block of rows of W_U diag(g_f), each head on the --threads
/// workers makes its C W_o read-out of the block (block x d) and its logits for the tokens read
/// (tokens x block). Holds a block of the read-out, not V x D. 512 rows a block: at Llama-3-8B's
/// D = 4,096 the block is 16.8 MB and stays in the shared cache while every head's product packs
/// it again; a block of 2,048 rows (67 MB) does not (docs/benchmarks.md: layer 0's copying,
/// `qkov scan DIR --layers 0-0 --timings`, 133.6-134.4 s with 2,048 rows, 114.2 s with 512).
///
/// `inputs` (T x D, optional) stands in for the tokens' effective embeddings at the heads' layer,
/// read without the value bias: what the circuit search asks of a head that writes what earlier
/// heads put at the position it attends to (circuit_search.hpp).
inline std::vector<token_copying> copying_per_token(const std::vector<model::head_weights>& heads, const token_readout& r,
                                                    const forward::decoder<double>& pass, std::size_t block_rows = 512,
                                                    std::size_t token_rows_at_once = 512, const matrix* inputs = nullptr)
{
    if (heads.empty()) return {};
    const std::size_t H = heads.size(), D = heads[0].w_o.shape()[0], d = heads[0].w_o.shape()[1], T = r.tokens.size();
    // The tally finds the row that reads a vocabulary token by bisection.
    if (std::adjacent_find(r.tokens.begin(), r.tokens.end(), std::greater_equal<>()) != r.tokens.end())
        throw std::invalid_argument("qkov: the per-token copying needs the tokens read in ascending order, each once");
    // C W_o per head (D x d): centring a column removes its mean (the LayerNorm's mean of the
    // head's output). Under RMSNorm C = I and the heads' own W_o serve, uncopied (Llama-3-8B: 134 MB
    // a layer).
    std::vector<matrix> centred(r.centres ? H : 0);
    for (std::size_t h = 0; h < centred.size(); ++h) {
        centred[h] = heads[h].w_o;
        for (std::size_t i = 0; i < d; ++i) {
            double mean = 0;
            for (std::size_t j = 0; j < D; ++j) mean += heads[h].w_o(j, i);
            mean /= static_cast<double>(D);
            for (std::size_t j = 0; j < D; ++j) centred[h](j, i) -= mean;
        }
    }
    const auto read_out = [&](std::size_t h) -> const matrix& { return r.centres ? centred[h] : heads[h].w_o; };
    const matrix& x = inputs ? *inputs : r.effective.rows.at(heads[0].layer);
    if (x.shape()[0] != T) throw std::invalid_argument("qkov: the per-token copying needs one input row per token read");
    // Per key/value head: T x d, W_v x_t + b_v, shared by the query heads that read it (a GQA
    // group: Llama-3-8B holds 8 of them instead of 32, 33 MB instead of 131). kv_head names the
    // shared W_v, as in the composition's stack (composition.hpp).
    std::map<std::size_t, matrix> values;
    const auto values_of = [&](std::size_t h) -> const matrix& { return values.at(heads[h].kv_head); };
    std::vector<detail::copying_tally> tallies;
    for (std::size_t h = 0; h < H; ++h) {
        if (!values.contains(heads[h].kv_head)) {
            matrix v = multiply(x, heads[h].w_v, false, true);
            if (heads[h].b_v.size() && !inputs)
                for (std::size_t i = 0; i < T; ++i)
                    for (std::size_t c = 0; c < d; ++c) v(i, c) += heads[h].b_v(c);
            values.emplace(heads[h].kv_head, std::move(v));
        }
        const matrix own_out = multiply(r.token_rows, read_out(h));  // T x d: each token's own row of the head's read-out
        std::vector<double> own(T, 0.0);
        for (std::size_t i = 0; i < T; ++i)
            for (std::size_t c = 0; c < d; ++c) own[i] += values_of(h)(i, c) * own_out(i, c);
        tallies.emplace_back(std::move(own));
    }
    token_rows_at_once = std::max<std::size_t>(token_rows_at_once, 1);
    pass.for_each_output_block(
        [&](std::size_t first, const numeric::tensor2<double>& unembedding_rows) {
            matrix rows = unembedding_rows;
            scale_columns(rows, r.scale);
            const std::size_t n = rows.shape()[0];
            numeric::for_each_block(H, [&](std::size_t h) {
                // Head h's read-out of this block (n x d), then its logits of the tokens read for
                // the block's tokens, some tokens read at a time: T x n would be 16 MB a worker at
                // Llama-3-8B's 4,008 tokens read; 512 of them (2 MB) are still in cache when the
                // tally reads them back.
                matrix out = xt::empty<double>({n, d});
                multiply_into(n, d, D, rows.data(), D, false, read_out(h).data(), d, false, out.data(), d);
                // The logits transposed (n x m): a vocabulary token's entries for the tokens read
                // lie side by side, which is the tally's order.
                matrix logits = xt::empty<double>({n, std::min(token_rows_at_once, T)});
                for (std::size_t i0 = 0; i0 < T; i0 += token_rows_at_once) {
                    const std::size_t m = std::min(token_rows_at_once, T - i0);
                    multiply_into(n, m, d, out.data(), d, false, values_of(h).data() + i0 * d, d, true, logits.data(), m);
                    for (std::size_t j = 0; j < n; ++j) tallies[h].add(first + j, i0, m, logits.data() + j * m, r.tokens.data() + i0);
                }
            });
        },
        block_rows);
    std::vector<token_copying> result;
    for (const auto& tally : tallies) result.push_back(detail::copying_of(tally, r.vocabulary));
    return result;
}

} // namespace qkov::scan
