// A head's attention predicted from its weights and the input its layer actually reads
// (proxy_pass.hpp): the mean-field kernel, the attention it predicts by offset and on BOS, and how
// far position alone can move a logit (docs/SCAN-LABELS.md has the definitions and their sources).
//
// Column convention, q = W_q x + b_q; the score of query position m against key position n is
// q_m^T R_{n - m} k_n / sqrt(d) (the model's own scaling), R the layer's rotation (identity for a
// NoPE layer or a model with learned positions).
//   RoPE and NoPE layers: q = W_q mu_l + b_q and k = W_k mu_l + b_k at every position, so the
//     score of keys n >= 1 depends only on the offset delta = m - n: s(delta) (structure_measurement.hpp's
//     offset_score); the BOS key (position 0) is k_bos = W_k x_bos + b_k from the proxy pass's row 0.
//   Learned positions: q_m and k_n from the proxy pass's rows m and n, which carry the position
//     embedding through every earlier block.
// Predicted attention: the causal softmax over keys 0 .. m for each query m, averaged: p(delta) for
// delta = 0 .. W over queries W .. N, p(BOS) and the previous-token score over queries 1 .. N. Everything is generic over the scalar: evaluated in
// double for the prediction and in qkov's interval arithmetic (scalar/interval.hpp) for its
// certificate, a lower bound on p(delta) and p(BOS) and an upper bound on the swing, proofs for the
// stored weights and the proxy input (conditional on that input, as the evidence says).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "qkov/circuits/rope_layout.hpp"
#include "qkov/forward/rope_schedule.hpp"
#include "qkov/io/model_config.hpp"
#include "qkov/labels/vocabulary.hpp"
#include "qkov/model/attention_model.hpp"
#include "qkov/scalar/interval.hpp"
#include "qkov/scalar/interval_functions.hpp"
#include "qkov/scan/structure_measurement.hpp"
#include "qkov/scan/proxy_pass.hpp"
#include "qkov/scan/token_contents.hpp"

namespace qkov::scan {

struct mean_field_settings {
    std::size_t window = labels::largest_offset;  ///< offsets 0 .. W predicted; queries start at W
    std::size_t queries = 128;  ///< N: the proxy sequence's length past BOS, the last query
};

namespace detail {
inline double upper_end(double x) { return x; }
inline double upper_end(const interval& x) { return x.hi(); }
inline double larger(double a, double b) { return std::max(a, b); }
inline interval larger(const interval& a, const interval& b) { return {std::max(a.lo(), b.lo()), std::max(a.hi(), b.hi())}; }
inline double smaller(double a, double b) { return std::min(a, b); }
inline interval smaller(const interval& a, const interval& b) { return {std::min(a.lo(), b.lo()), std::min(a.hi(), b.hi())}; }
inline double magnitude(double x) { return std::abs(x); }
/// The root of a quantity known to be >= 0 (a sum of squares): the interval's lower end is raised
/// to 0 first, since outward rounding takes an exact 0 product one subnormal below it.
inline double root_of_nonnegative(double x) { return std::sqrt(std::max(0.0, x)); }
inline interval root_of_nonnegative(const interval& x) { return sqrt(interval(std::max(0.0, x.lo()), std::max(0.0, x.hi()))); }
inline interval magnitude(const interval& x)
{
    if (x.lo() >= 0) return x;
    if (x.hi() <= 0) return -x;
    return {0.0, std::max(-x.lo(), x.hi())};
}
} // namespace detail

/// The scores of one head on the proxy sequence, divided by sqrt(d): score(m, n) for n <= m.
template <class T>
struct head_kernel {
    bool stationary = true;
    std::vector<T> by_offset;  ///< stationary: s(delta) / sqrt(d), delta = 0 .. N
    std::vector<T> bos;        ///< stationary: the BOS key's score for query m, m = 0 .. N
    std::vector<T> full;       ///< learned positions: (N + 1) x (N + 1), row = query
    std::size_t positions = 0; ///< N

    [[nodiscard]] T score(std::size_t m, std::size_t n) const
    {
        if (!stationary) return full[m * (positions + 1) + n];
        return n == 0 ? bos[m] : by_offset[m - n];
    }
};

/// 1 / sqrt(d) in T (enclosed for intervals).
template <class T>
T inverse_sqrt(std::size_t d)
{
    using std::sqrt;
    return T(1) / sqrt(T(static_cast<double>(d)));
}

/// How far the tokens' content moves each key's score away from the mean field's, in nats (scores
/// divided by sqrt(d)), estimated from a sample of the content (token_contents.hpp): for query m
/// and key n, the mean and standard deviation of the change when both hold random tokens. A key at
/// offset delta >= 1 holds a token drawn independently of the query's, so with q_a = W_q c_a and
/// k_b = W_k c_b the contents (covariances C_q, C_k over the sample) and R the rotation by delta:
///   change = (R q_a) . k + (R q) . k_b + (R q_a) . k_b, mean 0, variance
///   (R q)^T C_k (R q) + (R^T k)^T C_q (R^T k) + tr(C_k R C_q R^T):
/// the key's content against the mean query, the query's content against the mean key (which moves
/// with the offset, so it does not cancel in the softmax), and both contents. The key at offset 0 is
/// the query's own token, whose contents are not independent: its change,
/// q_a . k + q . k_a + q_a . k_a, is measured over the sample itself (mean and standard deviation).
/// The BOS key is one fixed token: its score moves with the query's content only,
/// (R_m^T k_bos)^T C_q (R_m^T k_bos). These are estimates of the spread, not bounds on it: a
/// certificate states the widths it allows (deviations x these), and holds for every input whose
/// scores stay within them (docs/SCAN-LABELS.md).
struct score_spread {
    bool stationary = true;
    std::size_t positions = 0;       ///< N
    std::vector<double> offset_sd;   ///< stationary: delta = 0 .. N (delta 0: the query's own token)
    double own_mean = 0;             ///< stationary: the mean change of the score at offset 0
    std::vector<double> bos_sd;      ///< stationary: per query m = 0 .. N
    std::vector<double> full_sd, full_mean;  ///< learned positions: (N + 1) x (N + 1), row = query

    [[nodiscard]] double sd(std::size_t m, std::size_t n) const
    {
        if (!stationary) return full_sd[m * (positions + 1) + n];
        return n == 0 ? bos_sd[m] : offset_sd[m - n];
    }
    [[nodiscard]] double mean(std::size_t m, std::size_t n) const
    {
        if (!stationary) return full_mean[m * (positions + 1) + n];
        return n != 0 && n == m ? own_mean : 0.0;
    }
    /// The mean standard deviation of the keys at offsets 1 .. W over queries W .. N: how much
    /// content moves a key's score, as the semantic rule reads it.
    [[nodiscard]] double typical_sd(std::size_t window) const
    {
        double sum = 0;
        std::size_t count = 0;
        for (std::size_t m = std::min(window, positions); m <= positions; ++m) {
            for (std::size_t delta = 1; delta <= window && delta < m; ++delta) sum += sd(m, m - delta), ++count;
            if (stationary) break;  // every query sees the same offsets
        }
        return count == 0 ? 0.0 : sum / static_cast<double>(count);
    }
};

namespace detail {
/// R v (or R^T v) for RoPE's rotation by angles with the given cosines and sines per pair, R as
/// query_at_offset applies it: v_a' = c v_a - s v_b, v_b' = c v_b + s v_a.
inline std::vector<double> rotated(const std::vector<double>& v, const rope_layout& layout, const std::vector<double>& c, const std::vector<double>& s,
                                   bool transposed)
{
    std::vector<double> out = v;
    for (std::size_t l = 0; l < layout.pairs(); ++l) {
        const std::size_t a = layout.first(l), b = layout.second(l);
        const double sine = transposed ? -s[l] : s[l];
        out[a] = c[l] * v[a] - sine * v[b];
        out[b] = c[l] * v[b] + sine * v[a];
    }
    return out;
}
/// v^T C v for a d x d matrix C.
inline double quadratic(const std::vector<double>& v, const matrix& c)
{
    double sum = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        double row = 0;
        for (std::size_t j = 0; j < v.size(); ++j) row += c(i, j) * v[j];
        sum += v[i] * row;
    }
    return sum;
}
/// tr(A R B R^T) for d x d A, B: B's rows and columns rotated in place of a product.
inline double rotated_trace(const matrix& a, const matrix& b, const rope_layout& layout, const std::vector<double>& c, const std::vector<double>& s)
{
    matrix r = b;
    const std::size_t d = b.shape()[0];
    for (std::size_t l = 0; l < layout.pairs(); ++l) {
        const std::size_t p = layout.first(l), q = layout.second(l);
        for (std::size_t j = 0; j < d; ++j) {  // rows: R B
            const double x = r(p, j), y = r(q, j);
            r(p, j) = c[l] * x - s[l] * y, r(q, j) = c[l] * y + s[l] * x;
        }
        for (std::size_t i = 0; i < d; ++i) {  // columns: (R B) R^T
            const double x = r(i, p), y = r(i, q);
            r(i, p) = c[l] * x - s[l] * y, r(i, q) = c[l] * y + s[l] * x;
        }
    }
    double trace = 0;
    for (std::size_t i = 0; i < d; ++i)
        for (std::size_t j = 0; j < d; ++j) trace += a(i, j) * r(j, i);
    return trace;
}
/// The covariance (divisor n) of the rows of x (n x d).
inline matrix sample_covariance(const matrix& x)
{
    const std::size_t n = x.shape()[0], d = x.shape()[1];
    std::vector<double> mean(d, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j) mean[j] += x(i, j) / static_cast<double>(n);
    matrix c = xt::zeros<double>({d, d});
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t a = 0; a < d; ++a)
            for (std::size_t b = 0; b < d; ++b) c(a, b) += (x(i, a) - mean[a]) * (x(i, b) - mean[b]) / static_cast<double>(n);
    return c;
}
/// Mean and standard deviation over the sample of the change of the score of a query q against its
/// own token's key k when both take the sample's contents: q_a . k + q . k_a + q_a . k_a.
inline std::pair<double, double> own_token_change(const std::vector<double>& q, const std::vector<double>& k, const token_contents& c)
{
    const std::size_t S = c.queries.shape()[0], d = q.size();
    double sum = 0, square = 0;
    for (std::size_t a = 0; a < S; ++a) {
        double x = 0;
        for (std::size_t i = 0; i < d; ++i) x += c.queries(a, i) * k[i] + q[i] * c.keys(a, i) + c.queries(a, i) * c.keys(a, i);
        sum += x, square += x * x;
    }
    const double mean = sum / static_cast<double>(S);
    return {mean, std::sqrt(std::max(0.0, square / static_cast<double>(S) - mean * mean))};
}
} // namespace detail

/// The spread content gives head h's scores on the proxy input (score_spread), from the sampled
/// contents `c`. `rope` is the layer's (nullopt: NoPE, or learned positions).
inline score_spread content_score_spread(const model::head_weights& h, const proxy_layer& input, bool learned_positions,
                                         const std::optional<io::rope_config>& rope, const token_contents& c)
{
    const std::size_t d = h.w_q.shape()[0], N = input.normed.shape()[0] - 1;
    if (c.queries.shape()[0] == 0 || c.queries.shape()[1] != d || c.keys.shape() != c.queries.shape())
        throw std::invalid_argument("qkov: sampled token contents do not match the head");
    const double scale = 1 / std::sqrt(static_cast<double>(d));
    const matrix c_q = detail::sample_covariance(c.queries), c_k = detail::sample_covariance(c.keys);
    const auto row = [&](std::size_t t) { return vector(xt::view(input.normed, t, xt::all())); };
    score_spread out;
    out.positions = N;
    if (learned_positions) {
        out.stationary = false;
        std::vector<std::vector<double>> queries, keys;
        std::vector<double> query_side, key_side;  // k_n^T C_q k_n and q_m^T C_k q_m
        for (std::size_t t = 0; t <= N; ++t) {
            queries.push_back(project<double>(h.w_q, h.b_q, row(t)));
            keys.push_back(project<double>(h.w_k, h.b_k, row(t)));
            query_side.push_back(detail::quadratic(keys.back(), c_q));
            key_side.push_back(detail::quadratic(queries.back(), c_k));
        }
        const double both = detail::rotated_trace(c_k, c_q, rope_layout{d, 0, rope_pairing::rotate_half}, {}, {});
        out.full_sd.assign((N + 1) * (N + 1), 0.0);
        out.full_mean.assign((N + 1) * (N + 1), 0.0);
        for (std::size_t m = 1; m <= N; ++m)
            for (std::size_t n = 0; n <= m; ++n) {
                auto& sd = out.full_sd[m * (N + 1) + n];
                if (n == 0) sd = std::sqrt(std::max(0.0, query_side[0])) * scale;
                else if (n == m) {
                    const auto [mean, deviation] = detail::own_token_change(queries[m], keys[m], c);
                    out.full_mean[m * (N + 1) + n] = mean * scale, sd = deviation * scale;
                } else {
                    sd = std::sqrt(std::max(0.0, query_side[n] + key_side[m] + both)) * scale;
                }
            }
        return out;
    }
    const rope_layout layout{d, rope ? rope->rotary_dim : 0, rope ? rope->pairing : rope_pairing::rotate_half};
    std::vector<double> theta;
    if (rope) theta = forward::rope_theta<double>(*rope);
    const auto q = project<double>(h.w_q, h.b_q, input.mean), k = project<double>(h.w_k, h.b_k, input.mean), k_bos = project<double>(h.w_k, h.b_k, row(0));
    std::vector<double> cosines(layout.pairs()), sines(layout.pairs());
    for (std::size_t delta = 0; delta <= N; ++delta) {
        for (std::size_t l = 0; l < layout.pairs(); ++l)
            cosines[l] = std::cos(static_cast<double>(delta) * theta[l]), sines[l] = std::sin(static_cast<double>(delta) * theta[l]);
        const double variance = detail::quadratic(detail::rotated(q, layout, cosines, sines, false), c_k) +
                                detail::quadratic(detail::rotated(k, layout, cosines, sines, true), c_q) + detail::rotated_trace(c_k, c_q, layout, cosines, sines);
        out.offset_sd.push_back(std::sqrt(std::max(0.0, variance)) * scale);
        // The BOS key seen from query m = delta.
        out.bos_sd.push_back(delta == 0 ? 0.0 : std::sqrt(std::max(0.0, detail::quadratic(detail::rotated(k_bos, layout, cosines, sines, true), c_q))) * scale);
    }
    const auto [mean, deviation] = detail::own_token_change(q, k, c);
    out.own_mean = mean * scale, out.offset_sd[0] = deviation * scale;
    return out;
}

/// [mean - deviations sd, mean + deviations sd] of a score's change, as an interval for the
/// certificate (0 for double: the prediction is the mean field itself, and without a spread or with
/// deviations 0). The ends are doubles, so the widths are exact.
template <class T>
T allowed_change(const score_spread* spread, double mean, double sd, double deviations)
{
    if constexpr (std::is_same_v<T, interval>) {
        if (spread && deviations > 0) return interval(mean - deviations * sd, mean + deviations * sd);
    }
    (void)spread, (void)mean, (void)sd, (void)deviations;
    return T(0);
}

/// The kernel of head h from its layer's proxy input. `rope` is the layer's (nullopt: NoPE, or
/// learned positions when the proxy carries them). With `spread` (may be null) and `deviations`
/// > 0 (intervals only), each score is widened by its allowed change (allowed_change): a bound
/// computed from that kernel holds for every input whose scores stay within those widths of the
/// mean field's.
template <class T>
head_kernel<T> mean_field_kernel(const model::head_weights& h, const proxy_layer& input, bool learned_positions, const std::optional<io::rope_config>& rope,
                                 const score_spread* spread = nullptr, double deviations = 0)
{
    const std::size_t d = h.w_q.shape()[0], N = input.normed.shape()[0] - 1;
    const T scale = inverse_sqrt<T>(d);
    head_kernel<T> k;
    k.positions = N;
    const auto row = [&](std::size_t t) { return vector(xt::view(input.normed, t, xt::all())); };
    if (learned_positions) {
        k.stationary = false;
        std::vector<std::vector<T>> queries, keys;
        for (std::size_t t = 0; t <= N; ++t) {
            const vector x = row(t);
            queries.push_back(project<T>(h.w_q, h.b_q, x));
            keys.push_back(project<T>(h.w_k, h.b_k, x));
        }
        k.full.assign((N + 1) * (N + 1), T(0));
        for (std::size_t m = 0; m <= N; ++m)
            for (std::size_t n = 0; n <= m; ++n) {
                T s(0);
                for (std::size_t i = 0; i < d; ++i) s += queries[m][i] * keys[n][i];
                k.full[m * (N + 1) + n] = s * scale + (spread ? allowed_change<T>(spread, spread->mean(m, n), spread->sd(m, n), deviations) : T(0));
            }
        return k;
    }
    const rope_layout layout{d, rope ? rope->rotary_dim : 0, rope ? rope->pairing : rope_pairing::rotate_half};
    std::vector<T> theta;
    if (rope) theta = forward::rope_theta<T>(*rope);
    const auto q = project<T>(h.w_q, h.b_q, input.mean), key = project<T>(h.w_k, h.b_k, input.mean), key_bos = project<T>(h.w_k, h.b_k, row(0));
    for (std::size_t delta = 0; delta <= N; ++delta) {
        const auto seen = query_at_offset(q, layout, theta, delta);
        T s(0), s_bos(0);
        for (std::size_t i = 0; i < d; ++i) s += seen[i] * key[i], s_bos += seen[i] * key_bos[i];
        // The key at offset delta of every query: offset 0 is the query's own token (a mean change too).
        k.by_offset.push_back(s * scale + (spread ? allowed_change<T>(spread, delta == 0 ? spread->own_mean : 0.0, spread->offset_sd[delta], deviations) : T(0)));
        k.bos.push_back(s_bos * scale + (spread ? allowed_change<T>(spread, 0.0, spread->bos_sd[delta], deviations) : T(0)));  // query m = delta
    }
    return k;
}

/// Attention by offset, averaged over queries W .. N (every one of them has a key at every offset
/// 0 .. W), and on BOS and on the previous position, averaged over queries 1 .. N: the averages
/// `qkov detect` measures (head_detectors.hpp), so a prediction and its behaviour describe the same
/// queries. The previous-token score is TransformerLens' statistic, which qkov detect's
/// previous_token reads: every query's attention on the key just before it, BOS being query 1's.
template <class T>
struct predicted_attention {
    std::vector<T> by_offset;  ///< p(delta), delta = 0 .. W
    T bos{0};
    T previous{0};  ///< mean attention on key m - 1 over queries m = 1 .. N
    std::size_t first_query = 0, last_query = 0;  ///< of the offsets' average
};

/// The first query of the average over the keys `bos` (BOS only: 1) or offsets (W).
inline std::size_t first_averaged_query(std::size_t window, std::size_t N, bool bos_only) { return std::min(bos_only ? std::size_t{1} : window, N); }

/// The causal softmax of the kernel at each query m, each key's weight exp(s_n - c) / sum exp(s_j - c)
/// with c the largest score's upper end (no overflow, and for intervals the same enclosure). This
/// is the softmax of the mean field; with the tokens' content drawn in, sampled_attention.hpp.
template <class T>
predicted_attention<T> predict_attention(const head_kernel<T>& k, std::size_t window)
{
    using std::exp;
    const std::size_t N = k.positions;
    predicted_attention<T> p;
    p.by_offset.assign(window + 1, T(0));
    p.first_query = first_averaged_query(window, N, false), p.last_query = N;
    std::vector<T> weight;
    for (std::size_t m = first_averaged_query(window, N, true); m <= N; ++m) {
        double shift = -INFINITY;
        for (std::size_t n = 0; n <= m; ++n) shift = std::max(shift, detail::upper_end(k.score(m, n)));
        weight.assign(m + 1, T(0));
        T total(0);
        for (std::size_t n = 0; n <= m; ++n) total += weight[n] = exp(k.score(m, n) - T(shift));
        if (m >= p.first_query)
            for (std::size_t delta = 0; delta <= std::min(window, m); ++delta) p.by_offset[delta] += weight[m - delta] / total;
        p.bos += weight[0] / total;
        if (m >= 1) p.previous += weight[m - 1] / total;  // m = 0 only when no position follows BOS
    }
    const T offset_queries(static_cast<double>(N - p.first_query + 1)), bos_queries(static_cast<double>(N - first_averaged_query(window, N, true) + 1));
    for (auto& x : p.by_offset) x = x / offset_queries;
    p.bos = p.bos / bos_queries;
    p.previous = p.previous / bos_queries;
    return p;
}

/// The attention of query m on the keys n with in_set(n), written 1 / (1 + sum_{j out} e^{s_j} /
/// sum_{i in} e^{s_i}) so that in intervals every key's score enters once: the enclosure is then the
/// exact range over independent scores in their intervals (the form e_n / sum e_j would count e_n
/// twice and lose that).
template <class T, class InSet>
T mass_on(const head_kernel<T>& k, std::size_t m, InSet in_set)
{
    using std::exp;
    double shift = -INFINITY;
    for (std::size_t n = 0; n <= m; ++n) shift = std::max(shift, detail::upper_end(k.score(m, n)));
    T inside(0), outside(0);
    for (std::size_t n = 0; n <= m; ++n) (in_set(n) ? inside : outside) += exp(k.score(m, n) - T(shift));
    return T(1) / (T(1) + outside / inside);
}

/// The attention on the offsets of `offsets` (and on BOS when `bos`), averaged over the queries
/// first .. N; 0 when there are none.
template <class T>
T mass_on_offsets_from(const head_kernel<T>& k, std::size_t first, const std::vector<std::size_t>& offsets, bool bos)
{
    const std::size_t N = k.positions;
    if (first > N) return T(0);
    T sum(0);
    for (std::size_t m = first; m <= N; ++m)
        sum += mass_on(k, m, [&](std::size_t n) {
            return (bos && n == 0) || std::find(offsets.begin(), offsets.end(), m - n) != offsets.end();
        });
    return sum / T(static_cast<double>(N - first + 1));
}

/// The same over the queries predict_attention averages it over (BOS alone: 1 .. N; otherwise W .. N).
template <class T>
T mass_on_offsets(const head_kernel<T>& k, std::size_t window, const std::vector<std::size_t>& offsets, bool bos)
{
    return mass_on_offsets_from(k, first_averaged_query(window, k.positions, bos && offsets.empty()), offsets, bos);
}

/// The previous-token score: the attention at offset 1 averaged over the queries 1 .. N (BOS is
/// query 1's previous key), predicted_attention's `previous`; 0 with no query past BOS.
template <class T>
T previous_token_mass(const head_kernel<T>& k)
{
    return mass_on_offsets_from(k, 1, {1}, false);
}

/// The largest change of a logit that offsets 0 .. W can cause, from the mean-field kernel:
/// stationary kernels, max s - min s over offsets 0 .. W; learned positions, the same over the keys
/// of each query W .. N, the largest.
template <class T>
T positional_swing(const head_kernel<T>& k, std::size_t window)
{
    const std::size_t N = k.positions;
    T swing(0);
    for (std::size_t m = std::min(window, N); m <= N; ++m) {
        T top = k.score(m, m), bottom = k.score(m, m);
        for (std::size_t delta = 1; delta <= window && delta < m; ++delta)  // keys m - delta >= 1: BOS is not an offset
            top = detail::larger(top, k.score(m, m - delta)), bottom = detail::smaller(bottom, k.score(m, m - delta));
        swing = detail::larger(swing, top - bottom);
        if (k.stationary) break;  // every query sees the same offsets
    }
    return swing;
}

/// The per-pair bound on the swing over offsets 0 .. W for a RoPE head whose pair l has query and
/// key magnitudes |q_l|, |k_l| (rho_l = |q_l| |k_l|): (1 / sqrt(d)) sum_l 2 rho_l max_{delta <= W}
/// |sin(delta theta_l / 2)| (the unrotated dimensions do not move with the offset).
template <class T>
T rope_swing_bound(const std::vector<T>& q_norm, const std::vector<T>& k_norm, const std::vector<T>& theta, std::size_t window, std::size_t d)
{
    using std::sin;
    T sum(0);
    for (std::size_t l = 0; l < theta.size(); ++l) {
        T largest(0);
        for (std::size_t delta = 1; delta <= window; ++delta)
            largest = detail::larger(largest, detail::magnitude(sin(T(static_cast<double>(delta)) * theta[l] / T(2))));
        sum += T(2) * q_norm[l] * k_norm[l] * largest;
    }
    return sum * inverse_sqrt<T>(d);
}

/// |v_l| per RoPE pair of a d-vector.
template <class T>
std::vector<T> pair_norms(const std::vector<T>& v, const rope_layout& layout)
{
    using std::sqrt;
    std::vector<T> out;
    for (std::size_t l = 0; l < layout.pairs(); ++l) {
        const T a = v[layout.first(l)], b = v[layout.second(l)];
        out.push_back(detail::root_of_nonnegative(a * a + b * b));
    }
    return out;
}

/// An upper bound on ||x_hat|| for every output x_hat of the norm: sqrt(D) max|g| (RMSNorm's
/// x / rms(x) has norm at most sqrt(D)); LayerNorm adds ||beta||.
inline interval norm_output_bound(const model::norm_weights& norm)
{
    const std::size_t D = norm.weight.size();
    interval largest(0.0);
    for (const double g : norm.weight) largest = detail::larger(largest, detail::magnitude(interval(g)));
    interval bound = sqrt(interval(static_cast<double>(D))) * largest;
    if (!norm.bias.size()) return bound;
    interval beta(0.0);
    for (const double b : norm.bias) beta += interval(b) * interval(b);
    return bound + detail::root_of_nonnegative(beta);
}

/// Per pair l, an upper bound on |W_l x + b_l| over every ||x|| <= radius: ||W_l||_F radius + |b_l|.
inline std::vector<interval> pair_norm_bounds(const matrix& w, const vector& b, const rope_layout& layout, const interval& radius)
{
    std::vector<interval> out;
    const std::size_t D = w.shape()[1];
    for (std::size_t l = 0; l < layout.pairs(); ++l) {
        interval rows(0.0), bias(0.0);
        for (const std::size_t i : {layout.first(l), layout.second(l)}) {
            for (std::size_t j = 0; j < D; ++j) rows += interval(w(i, j)) * interval(w(i, j));
            if (b.size()) bias += interval(b(i)) * interval(b(i));
        }
        out.push_back(detail::root_of_nonnegative(rows) * radius + detail::root_of_nonnegative(bias));
    }
    return out;
}

} // namespace qkov::scan
