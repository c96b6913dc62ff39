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
#include "qkov/model/attention_model.hpp"
#include "qkov/scalar/interval.hpp"
#include "qkov/scalar/interval_functions.hpp"
#include "qkov/scan/structure_measurement.hpp"
#include "qkov/scan/proxy_pass.hpp"

namespace qkov::scan {

struct mean_field_settings {
    std::size_t window = 8;     ///< offsets 0 .. W predicted; queries start at W
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
    std::vector<double> noise; ///< per query m: the standard deviation content adds to each content key's score (empty: none; evidence only)

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

/// q^T C q for a d x d covariance C, in T.
template <class T>
T quadratic_form(const std::vector<T>& q, const matrix& c)
{
    T sum(0);
    for (std::size_t i = 0; i < q.size(); ++i) {
        T row(0);
        for (std::size_t j = 0; j < q.size(); ++j) row += T(c(i, j)) * q[j];
        sum += q[i] * row;
    }
    return sum;
}

/// The kernel of head h from its layer's proxy input. `rope` is the layer's (nullopt: NoPE, or
/// learned positions when the proxy carries them).
///
/// The content of the tokens, as a head sees it: the covariances of its queries (C_q) and keys (C_k)
/// over the tokens' effective embeddings (token_copying.hpp), d x d each.
struct content_covariance {
    matrix queries, keys;
};

/// The variance a key's score gains from content, for a query seen as v at that key's offset:
/// v^T C_k v (the key's content against the mean query) + tr(C_q C_k) (the query's content against
/// the key's, independent draws; taken at offset 0: a rotation of both keeps a pair's trace when the
/// content is isotropic within the pair).
template <class T>
T content_variance(const std::vector<T>& v, const content_covariance& c, const T& query_key_trace)
{
    return quadratic_form(v, c.keys) + query_key_trace;
}

/// tr(C_q C_k), in T.
template <class T>
T covariance_trace(const content_covariance& c)
{
    T sum(0);
    for (std::size_t i = 0; i < c.queries.shape()[0]; ++i)
        for (std::size_t j = 0; j < c.queries.shape()[1]; ++j) sum += T(c.queries(i, j)) * T(c.keys(j, i));
    return sum;
}

/// The interval a content key's score can move by: +- deviations sigma for content whose score
/// deviates from the mean field by at most that many standard deviations (0 for double: the
/// prediction is the mean field itself).
template <class T>
T content_spread(const T& variance, double deviations)
{
    if constexpr (std::is_same_v<T, interval>) {
        if (deviations > 0) {
            const double spread = (detail::root_of_nonnegative(variance) * interval(deviations)).hi();
            return interval(-spread, spread);
        }
    }
    (void)variance, (void)deviations;
    return T(0);
}

/// `content` (may be null) is the head's content covariance, and `deviations` > 0 (intervals only)
/// widens each content key's score by +- deviations standard deviations of its content
/// (content_variance / d): a bound computed from that kernel holds for every content whose scores
/// stay within that many deviations of the mean field's. The BOS key is one fixed token: no spread.
template <class T>
head_kernel<T> mean_field_kernel(const model::head_weights& h, const proxy_layer& input, bool learned_positions, const std::optional<io::rope_config>& rope,
                                 const content_covariance* content = nullptr, double deviations = 0)
{
    const std::size_t d = h.w_q.shape()[0], N = input.normed.shape()[0] - 1;
    const T scale = inverse_sqrt<T>(d);
    const T trace = content ? covariance_trace<T>(*content) : T(0);
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
        for (std::size_t m = 0; m <= N; ++m) {
            if constexpr (std::is_same_v<T, double>)
                if (content) k.noise.push_back(std::sqrt(std::max(0.0, content_variance(queries[m], *content, trace))) * scale);
            const T gain = content && deviations > 0 ? content_spread(content_variance(queries[m], *content, trace) * scale * scale, deviations) : T(0);
            for (std::size_t n = 0; n <= m; ++n) {
                T s(0);
                for (std::size_t i = 0; i < d; ++i) s += queries[m][i] * keys[n][i];
                k.full[m * (N + 1) + n] = s * scale + (n == 0 ? T(0) : gain);
            }
        }
        return k;
    }
    const rope_layout layout{d, rope ? rope->rotary_dim : 0, rope ? rope->pairing : rope_pairing::rotate_half};
    std::vector<T> theta;
    if (rope) theta = forward::rope_theta<T>(*rope);
    const auto q = project<T>(h.w_q, h.b_q, input.mean), key = project<T>(h.w_k, h.b_k, input.mean), key_bos = project<T>(h.w_k, h.b_k, row(0));
    if constexpr (std::is_same_v<T, double>)
        if (content) k.noise.assign(N + 1, std::sqrt(std::max(0.0, content_variance(q, *content, trace))) * scale);
    for (std::size_t delta = 0; delta <= N; ++delta) {
        const auto seen = query_at_offset(q, layout, theta, delta);
        T s(0), s_bos(0);
        for (std::size_t i = 0; i < d; ++i) s += seen[i] * key[i], s_bos += seen[i] * key_bos[i];
        const T gain = content && deviations > 0 ? content_spread(content_variance(q, *content, trace) * scale * scale, deviations) : T(0);
        k.by_offset.push_back(s * scale + gain);
        k.bos.push_back(s_bos * scale);
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
/// x / rms(x) has norm at most sqrt(D)); LayerNorm adds ||beta||; Gemma's scales by 1 + g.
inline interval norm_output_bound(const model::norm_weights& norm)
{
    const std::size_t D = norm.weight.size();
    interval largest(0.0);
    for (const double g : norm.weight) largest = detail::larger(largest, detail::magnitude(interval(g) + interval(norm.kind == io::norm_kind::rms_norm_plus_one ? 1.0 : 0.0)));
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
