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
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "qkov/forward/forward_pass.hpp"
#include "qkov/model/head_weights.hpp"
#include "qkov/numeric/avx2_dispatch.hpp"
#include "qkov/numeric/parallel_blocks.hpp"
#include "qkov/scan/embedding_sample.hpp"
#include "qkov/scan/float32_runs.hpp"
#include "qkov/scan/product_precision.hpp"
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
///
/// A float32 entry comes with a bound on its distance from the float64 entry (product_precision.hpp):
/// it counts above only when it is above by more than the bound, below only when below by more;
/// the entries in between are neither, and a token read whose decisions they could change is
/// recomputed (undecided_tokens).
struct copying_tally {
    std::vector<double> own;  ///< row_t[t]
    std::vector<double> above, below, best_other, shifted_sum, shifted_square;

    explicit copying_tally(std::vector<double> own_logits)
        : own(std::move(own_logits)), above(own.size()), below(own.size()), best_other(own.size(), -INFINITY), shifted_sum(own.size()),
          shifted_square(own.size())
    {
    }

    /// The bound on entry (vocabulary token, token read i) of a float32 row: a w[i] + b n[i] + c.
    struct entry_bound {
        double a = 0, b = 0, c = 0;
        const double* w = nullptr;
        const double* n = nullptr;
    };

    /// n rows' entries x[i] of tokens other than their own: the arrays do not overlap (__restrict
    /// lets the loop vectorise without a run-time overlap test). AVX2 where the processor has it
    /// (avx2_dispatch.hpp: the same counts and sums to the bit).
    template <class X>
    static void count_others(std::size_t n, const X* __restrict x, const double* __restrict own, double* __restrict sum, double* __restrict square,
                             double* __restrict above, double* __restrict below, double* __restrict best, const entry_bound* bound)
    {
#ifdef QKOV_AVX2_DISPATCH
        if (numeric::processor_has_avx2()) return count_others_avx2(n, x, own, sum, square, above, below, best, bound);
#endif
        count_others_here(n, x, own, sum, square, above, below, best, bound);
    }

#ifdef QKOV_AVX2_DISPATCH
    template <class X>
    [[gnu::target("avx2")]] static void count_others_avx2(std::size_t n, const X* __restrict x, const double* __restrict own, double* __restrict sum,
                                                          double* __restrict square, double* __restrict above, double* __restrict below,
                                                          double* __restrict best, const entry_bound* bound)
    {
        count_others_here(n, x, own, sum, square, above, below, best, bound);
    }
#endif

    template <class X>
    [[gnu::always_inline]] static inline void count_others_here(std::size_t n, const X* __restrict x, const double* __restrict own, double* __restrict sum,
                                                                double* __restrict square, double* __restrict above, double* __restrict below,
                                                                double* __restrict best, const entry_bound* bound)
    {
        if (bound == nullptr) {
            for (std::size_t i = 0; i < n; ++i) {
                const double v = x[i], shifted = v - own[i];
                sum[i] += shifted, square[i] += shifted * shifted;
                above[i] += v >= own[i] ? 1.0 : 0.0;
                below[i] += v < own[i] ? 1.0 : 0.0;
                best[i] = v > best[i] ? v : best[i];
            }
            return;
        }
        const double a = bound->a, b = bound->b, c = bound->c;
        const double* __restrict w = bound->w;
        const double* __restrict norm = bound->n;
        for (std::size_t i = 0; i < n; ++i) {
            const double v = x[i], shifted = v - own[i], e = a * w[i] + b * norm[i] + c;
            sum[i] += shifted, square[i] += shifted * shifted;
            above[i] += shifted >= e ? 1.0 : 0.0;  // a NaN or an infinite bound counts neither way
            below[i] += shifted < -e ? 1.0 : 0.0;
            best[i] = v > best[i] ? v : best[i];
        }
    }

    /// Vocabulary token `token`'s entries in the rows of tokens read i0 .. i0 + m: logit[i] is row
    /// i0 + i's, and read[i] the token that row reads, ascending (copying_tokens). The row that
    /// reads `token` itself gains the sums but not the counts: its entry is not another token's.
    /// `bound` (float32 entries): its w and n are indexed like `own`.
    template <class X>
    void add(std::size_t token, std::size_t i0, std::size_t m, const X* logit, const std::size_t* read, const entry_bound* bound = nullptr)
    {
        const std::size_t self = static_cast<std::size_t>(std::lower_bound(read, read + m, token) - read);
        const bool read_here = self < m && read[self] == token;
        entry_bound shifted_bound;
        if (bound) shifted_bound = {bound->a, bound->b, bound->c, bound->w + i0, bound->n + i0};
        const auto others = [&](std::size_t from, std::size_t to) {
            const std::size_t at = i0 + from;
            entry_bound here = shifted_bound;
            here.w += bound ? from : 0, here.n += bound ? from : 0;
            count_others(to - from, logit + from, own.data() + at, shifted_sum.data() + at, shifted_square.data() + at, above.data() + at,
                         below.data() + at, best_other.data() + at, bound ? &here : nullptr);
        };
        if (!read_here) return others(0, m);
        others(0, self);
        const double shifted = static_cast<double>(logit[self]) - own[i0 + self];
        shifted_sum[i0 + self] += shifted, shifted_square[i0 + self] += shifted * shifted;
        others(self + 1, m);
    }

    /// The tokens read whose top-1, top-5 or bottom-10 decision the undecided entries of a
    /// bounded tally could change (V - 1 others per row, each above, below or undecided).
    [[nodiscard]] std::vector<std::size_t> undecided_tokens(std::size_t V) const
    {
        std::vector<std::size_t> out;
        for (std::size_t i = 0; i < own.size(); ++i) {
            const double open = static_cast<double>(V - 1) - above[i] - below[i];
            const auto fixed = [&](double least, double limit) { return least >= limit || least + open < limit; };
            if (open > 0 && !(fixed(above[i], 1) && fixed(above[i], 5) && fixed(below[i], 10))) out.push_back(i);
        }
        return out;
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

/// A token read whose entries in one block of the vocabulary were not all decided by the float32
/// bound, with what the block's decided entries counted (to be replaced by the float64 counts).
struct open_block {
    std::size_t token = 0;  ///< index into the tokens read
    std::size_t first = 0;  ///< the block's first vocabulary row
    double above = 0, below = 0;
};

/// Euclidean norms of the rows of a row-major n x k block.
template <class T>
std::vector<double> row_norms(const T* a, std::size_t n, std::size_t k)
{
    std::vector<double> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        double s = 0;
        for (std::size_t j = 0; j < k; ++j) s += static_cast<double>(a[i * k + j]) * static_cast<double>(a[i * k + j]);
        out[i] = std::sqrt(s);
    }
    return out;
}

/// What the float32 path keeps of one head for the layer: its read-out and values in float32,
/// and the per-token factors of the bound (w_t = sum_c |W_c| |v_tc|, n_t = |v_t|).
struct float32_head {
    std::vector<float> read_out;  ///< D x d
    const std::vector<float>* values = nullptr;  ///< T x d, the key/value head's
    std::vector<double> w, n;
    double largest_w = 0, largest_n = 0;  ///< their maxima: |x| <= |R_i| w_t and |o_i| n_t, so below these no product overflows
};

/// Head h's float32 factors from its read-out W (D x d, C W_o) and its values (T x d) with their
/// float32 copy (shared by a key/value head's query heads).
inline float32_head float32_head_of(const matrix& w, const matrix& values, const std::vector<float>& values32)
{
    const std::size_t D = w.shape()[0], d = w.shape()[1], T = values.shape()[0];
    float32_head f;
    f.read_out = to_float32(w.data(), w.size());
    f.values = &values32;
    std::vector<double> column(d, 0.0);  // |W_c|
    for (std::size_t j = 0; j < D; ++j)
        for (std::size_t c = 0; c < d; ++c) column[c] += w(j, c) * w(j, c);
    for (auto& c : column) c = std::sqrt(c);
    f.n = row_norms(values.data(), T, d);
    f.w.assign(T, 0.0);
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t c = 0; c < d; ++c) f.w[i] += column[c] * std::abs(values(i, c));
    f.largest_w = T ? *std::max_element(f.w.begin(), f.w.end()) : 0.0, f.largest_n = T ? *std::max_element(f.n.begin(), f.n.end()) : 0.0;
    return f;
}

/// A block's float32 read-out through one head: o = R W (n x d) from the block's rows in float32
/// (n x D), summed in float32 over runs of float32_run and the runs in float64.
inline std::vector<float> float32_read_out(std::size_t n, std::size_t D, std::size_t d, const float* rows, const float32_head& f)
{
    std::vector<double> sum(n * d);
    product_in_float32_runs(n, d, D, rows, D, f.read_out.data(), d, sum.data(), d);
    return to_float32(sum.data(), sum.size());
}

/// The constants of the float32 logits' bound (token_copying's comment derives it), a little over
/// gamma for the double sums that form the bound's own terms.
struct float32_bound_constants {
    double read_out = 0, logit = 0;
    double root_D = 0, root_d = 0, D = 0, d = 0;
    float32_bound_constants(std::size_t D_, std::size_t d_)
        : read_out((1 + 1e-9) * gamma_bound<float>(std::min(D_, float32_run) + 5)), logit((1 + 1e-9) * gamma_bound<float>(d_ + 4)),
          root_D(std::sqrt(static_cast<double>(D_))), root_d(std::sqrt(static_cast<double>(d_))), D(static_cast<double>(D_)), d(static_cast<double>(d_))
    {
    }

    /// The bound on the entries of the row of a block with norm |R_i| = row_norm whose float32
    /// read-out has norm out_norm. Underflow's absolute errors (U = float32_underflow) carried to
    /// the logit: converting R_i and W adds U sqrt(D) w_t and U sqrt(D) |R_i| |v_t|_1; the read-out's
    /// 2D operations and its rounding U (2D + 1) |v_t|_1; converting v_t U sqrt(d) |o_i|; the
    /// second product's 2d operations U 2d; with |v_t|_1 <= sqrt(d) |v_t|. A row whose float32
    /// numbers could leave float32's range gets no bound (NaN): every entry undecided, every token
    /// read recomputed.
    [[nodiscard]] copying_tally::entry_bound row(double row_norm, double out_norm, const float32_head& f) const
    {
        const double U = float32_underflow;
        const bool in_range = row_norm * f.largest_w < 1e36 && out_norm * f.largest_n < 1e36;
        return {in_range ? read_out * row_norm + U * root_D : std::numeric_limits<double>::quiet_NaN(),
                logit * out_norm + U * root_d * (root_D * row_norm + 2 * D + 2), U * (root_d * out_norm + 2 * d + 2), f.w.data(), f.n.data()};
    }
};

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
///
/// In float32 (product_precision.hpp) both products run in float32 (the read-out's in runs of 256
/// terms added in float64), each logit with its bound against the float64 scan's:
///   |x32 - x64| <= gamma_{256+5} |R_i| w_t + gamma_{d+4} |o_i| |v_t| + underflow,
/// R_i the block's row, o_i its float32 read-out (d), w_t = sum_c |W_c| |v_tc| over the read-out's
/// columns W_c, v_t the token's value. (The first term: each entry of o_i is within gamma |R_i||W_c|
/// of R_i W_c by Cauchy-Schwarz, with the conversions to float32 and the float64 scan's own
/// rounding inside the 5 extra terms; the second: the second product and its conversions; the
/// underflow terms: float32_bound_constants::row.) A token read whose top-1, top-5 or bottom-10
/// decision an entry inside its bound could change has the blocks where it had open entries counted
/// again in float64 by the float64 path's own products: its counts, shares and top-1 flag are the
/// float64 scan's to the bit. The median margin is the float32 rows' (the one number that is not
/// decided; within the bound of the margin's terms). Each result counts the tokens it recomputed.
inline std::vector<token_copying> copying_per_token(const std::vector<model::head_weights>& heads, const token_readout& r,
                                                    const forward::decoder<double>& pass, std::size_t block_rows = 512,
                                                    std::size_t token_rows_at_once = 512, const matrix* inputs = nullptr,
                                                    product_precision precision = product_precision::float64)
{
    if (heads.empty()) return {};
    if (block_rows == 0) throw std::invalid_argument("qkov: the per-token copying reads the vocabulary in blocks of at least one row");
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
        const std::vector<double> mean = forward::written_column_means(heads[h].w_o);
        for (std::size_t j = 0; j < D; ++j)
            for (std::size_t i = 0; i < d; ++i) centred[h](j, i) -= mean[i];
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
    // Head h's read-out of a block of rows (n x d) in float64: the float64 path's, and the float32
    // path's recomputation, the same product to the bit.
    const auto read_out_of_block = [&](std::size_t h, const matrix& rows) {
        const std::size_t n = rows.shape()[0];
        matrix out = xt::empty<double>({n, d});
        multiply_into(n, d, D, rows.data(), D, false, read_out(h).data(), d, false, out.data(), d);
        return out;
    };
    const bool in_float32 = precision == product_precision::float32;
    std::map<std::size_t, std::vector<float>> values32;
    std::vector<detail::float32_head> heads32;
    for (std::size_t h = 0; in_float32 && h < H; ++h) {
        if (!values32.contains(heads[h].kv_head)) values32.emplace(heads[h].kv_head, to_float32(values_of(h).data(), values_of(h).size()));
        heads32.push_back(detail::float32_head_of(read_out(h), values_of(h), values32.at(heads[h].kv_head)));
    }
    const detail::float32_bound_constants bounds(D, d);
    token_rows_at_once = std::max<std::size_t>(token_rows_at_once, 1);
    // The float64 logits of a block's read-out `out` (n x d) for m tokens' values (m x d), into
    // `logits` with rows `stride` apart: at least 3 columns, zero values padding fewer, since
    // BLAS's paths for one or two columns sum in another order. Every float64 logit, the float64
    // path's and the float32 path's recomputed ones, goes through here: the same bits however the
    // tokens are grouped.
    const auto float64_logits = [&](const matrix& out, const double* values, std::size_t m, std::vector<double>& logits) {
        const std::size_t n = out.shape()[0], stride = std::max<std::size_t>(m, 3);
        logits.resize(n * stride);
        if (m >= 3) {
            multiply_into(n, m, d, out.data(), d, false, values, d, true, logits.data(), stride);
            return stride;
        }
        std::vector<double> padded(3 * d, 0.0);
        std::copy_n(values, m * d, padded.data());
        multiply_into(n, stride, d, out.data(), d, false, padded.data(), d, true, logits.data(), stride);
        return stride;
    };
    // Float32: per head, what each block's decided entries counted for each token read (above and
    // below, T x blocks pairs); a block that counted fewer than the token's others in it left some
    // of the token's entries open (docs/SCAN-LABELS.md). Dense and 16-bit: nearly every block
    // leaves some entry of a token inside its bound, so a record per open (token, block) would
    // hold about T x blocks records a head (1 GB a layer at Llama-3-8B's shape); these take 4 MB a head.
    const std::size_t V = r.vocabulary, blocks = (V + block_rows - 1) / block_rows;
    if (in_float32 && block_rows > std::numeric_limits<std::uint16_t>::max())
        throw std::invalid_argument("qkov: the float32 per-token copying counts a block's entries in 16 bits: at most 65,535 rows a block, not " +
                                    std::to_string(block_rows));
    std::vector<std::vector<std::uint16_t>> counted(in_float32 ? H : 0, std::vector<std::uint16_t>(in_float32 ? 2 * T * blocks : 0));
    pass.for_each_output_block(
        [&](std::size_t first, const numeric::tensor2<double>& unembedding_rows) {
            matrix rows = unembedding_rows;
            scale_columns(rows, r.scale);
            const std::size_t n = rows.shape()[0];
            std::vector<float> rows32;
            std::vector<double> row_norm;
            if (in_float32) rows32 = to_float32(rows.data(), rows.size()), row_norm = detail::row_norms(rows.data(), n, D);
            numeric::for_each_block(H, [&](std::size_t h) {
                // Head h's read-out of this block (n x d), then its logits of the tokens read for
                // the block's tokens, some tokens read at a time: T x n would be 16 MB a worker at
                // Llama-3-8B's 4,008 tokens read; 512 of them (2 MB) are still in cache when the
                // tally reads them back. The logits are transposed (n x m): a vocabulary token's
                // entries for the tokens read lie side by side, which is the tally's order.
                if (!in_float32) {
                    const matrix out = read_out_of_block(h, rows);
                    std::vector<double> logits;
                    for (std::size_t i0 = 0; i0 < T; i0 += token_rows_at_once) {
                        const std::size_t m = std::min(token_rows_at_once, T - i0);
                        const std::size_t stride = float64_logits(out, values_of(h).data() + i0 * d, m, logits);
                        for (std::size_t j = 0; j < n; ++j) tallies[h].add(first + j, i0, m, logits.data() + j * stride, r.tokens.data() + i0);
                    }
                    return;
                }
                const auto& f = heads32[h];
                auto& tally = tallies[h];
                const std::vector<float> out = detail::float32_read_out(n, D, d, rows32.data(), f);
                const std::vector<double> out_norm = detail::row_norms(out.data(), n, d);
                std::vector<float> logits(n * std::min(token_rows_at_once, T));
                std::vector<double> above(token_rows_at_once), below(token_rows_at_once);
                for (std::size_t i0 = 0; i0 < T; i0 += token_rows_at_once) {
                    const std::size_t m = std::min(token_rows_at_once, T - i0);
                    std::copy_n(tally.above.data() + i0, m, above.data()), std::copy_n(tally.below.data() + i0, m, below.data());
                    multiply_into(n, m, d, out.data(), d, false, f.values->data() + i0 * d, d, true, logits.data(), m);
                    for (std::size_t j = 0; j < n; ++j) {
                        const auto bound = bounds.row(row_norm[j], out_norm[j], f);
                        tally.add(first + j, i0, m, logits.data() + j * m, r.tokens.data() + i0, &bound);
                    }
                    // What the block counted for each token, from the counts alone (integers,
                    // whatever the compiler made of the bound's arithmetic): fewer than the block's
                    // others (the token's own row excluded), and the token has open entries here.
                    for (std::size_t i = 0; i < m; ++i) {
                        const std::size_t t = i0 + i;
                        std::uint16_t* here = counted[h].data() + 2 * (t * blocks + first / block_rows);
                        here[0] = static_cast<std::uint16_t>(tally.above[t] - above[i]), here[1] = static_cast<std::uint16_t>(tally.below[t] - below[i]);
                    }
                }
            });
        },
        block_rows);
    std::vector<std::size_t> recomputed(H, 0);
    if (in_float32) {
        // The undecided tokens' open blocks again, as the float64 path makes them (the block's
        // read-out R W in float64, the same product, then float64_logits): each such block's counts
        // of the token are replaced by the float64 path's, to the bit. A head pays its float64
        // read-out again for the blocks where an undecided token has open entries only.
        std::map<std::size_t, std::vector<std::vector<detail::open_block>>> by_block;  // first row -> per head
        for (std::size_t h = 0; h < H; ++h) {
            const auto undecided = tallies[h].undecided_tokens(r.vocabulary);
            recomputed[h] = undecided.size();
            for (const std::size_t t : undecided)
                for (std::size_t b = 0; b < blocks; ++b) {
                    // The block's other tokens (the token's own row is not one) all counted: none open.
                    const std::size_t first = b * block_rows, n = std::min(block_rows, V - first), token = r.tokens[t];
                    const std::uint16_t* here = counted[h].data() + 2 * (t * blocks + b);
                    const double counted_above = here[0], counted_below = here[1];
                    if (counted_above + counted_below >= static_cast<double>(n - (token >= first && token < first + n ? 1 : 0))) continue;
                    auto& heads_here = by_block[first];
                    heads_here.resize(H);
                    heads_here[h].push_back({t, first, counted_above, counted_below});
                }
        }
        if (!by_block.empty())
            pass.for_each_output_block(
                [&](std::size_t first, const numeric::tensor2<double>& unembedding_rows) {
                    const auto here = by_block.find(first);
                    if (here == by_block.end()) return;
                    matrix rows = unembedding_rows;
                    scale_columns(rows, r.scale);
                    const std::size_t n = rows.shape()[0];
                    numeric::for_each_block(H, [&](std::size_t h) {
                        const auto& blocks = here->second[h];
                        if (blocks.empty()) return;
                        matrix values = xt::empty<double>({blocks.size(), d});
                        for (std::size_t i = 0; i < blocks.size(); ++i) std::copy_n(values_of(h).data() + blocks[i].token * d, d, values.data() + i * d);
                        std::vector<double> logits;
                        const std::size_t stride = float64_logits(read_out_of_block(h, rows), values.data(), blocks.size(), logits);
                        auto& tally = tallies[h];
                        for (std::size_t i = 0; i < blocks.size(); ++i) {
                            const std::size_t t = blocks[i].token;
                            tally.above[t] -= blocks[i].above, tally.below[t] -= blocks[i].below;
                            for (std::size_t j = 0; j < n; ++j) {
                                if (first + j == r.tokens[t]) continue;  // its own entry
                                const double x = logits[j * stride + i];
                                tally.above[t] += x >= tally.own[t] ? 1.0 : 0.0;
                                tally.below[t] += x < tally.own[t] ? 1.0 : 0.0;
                            }
                        }
                    });
                },
                block_rows);
    }
    std::vector<token_copying> result;
    for (std::size_t h = 0; h < H; ++h) {
        result.push_back(detail::copying_of(tallies[h], r.vocabulary));
        result.back().precision = precision;
        result.back().recomputed = recomputed[h];
    }
    return result;
}

} // namespace qkov::scan
