// A head's attention predicted from its weights and the input its layer actually reads
// (proxy_pass.hpp): the mean-field kernel, the attention it predicts by offset and on BOS, and how
// far position alone can move a logit (docs/SCAN-LABELS.md has the definitions and their sources).
//
// Column convention, q = W_q x + b_q; the score of query position m against key position n is
// q_m^T R_{n - m} k_n / sqrt(d) (the model's own scaling), R the layer's rotation (identity for a
// NoPE layer or a model with learned positions).
//   RoPE and NoPE layers: q = W_q mu_l + b_q and k = W_k mu_l + b_k at every position, so the
//     score of keys n >= 1 depends only on the offset delta = m - n: s(delta) (head_structure.hpp's
//     offset_score); the BOS key (position 0) is k_bos = W_k x_bos + b_k from the proxy pass's row 0.
//   Learned positions: q_m and k_n from the proxy pass's rows m and n, which carry the position
//     embedding through every earlier block.
// Predicted attention: the causal softmax over keys 0 .. m for each query m = W .. N, averaged:
// p(delta) for delta = 0 .. W and p(BOS). Everything is generic over the scalar: evaluated in
// double for the prediction and in qkov's interval arithmetic (scalar/interval.hpp) for its
// certificate, a lower bound on p(delta) and p(BOS) and an upper bound on the swing, proofs for the
// stored weights and the proxy input (conditional on that input, as the evidence says).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "qkov/circuits/rope_layout.hpp"
#include "qkov/forward/rope_schedule.hpp"
#include "qkov/io/model_config.hpp"
#include "qkov/model/attention_model.hpp"
#include "qkov/scalar/interval.hpp"
#include "qkov/scalar/interval_functions.hpp"
#include "qkov/scan/head_structure.hpp"
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
    std::vector<double> noise; ///< per query m: the standard deviation content adds to each content key's score (empty: none)

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

/// Attention by offset and on BOS, averaged over queries W .. N.
template <class T>
struct predicted_attention {
    std::vector<T> by_offset;  ///< p(delta), delta = 0 .. W
    T bos{0};
    std::size_t first_query = 0, last_query = 0;
};

/// The causal softmax of the kernel at each query m, each key's weight exp(s_n - c) / sum exp(s_j - c)
/// with c the largest score's upper end (no overflow, and for intervals the same enclosure).
template <class T>
predicted_attention<T> predict_attention(const head_kernel<T>& k, std::size_t window)
{
    using std::exp;
    const std::size_t N = k.positions;
    predicted_attention<T> p;
    p.by_offset.assign(window + 1, T(0));
    p.first_query = std::min(window, N), p.last_query = N;
    std::vector<T> weight;
    if constexpr (std::is_same_v<T, double>) {
        if (!k.noise.empty()) {
            // Content as noise on each content key's score: the softmax averaged over `samples`
            // seeded draws per query (the BOS key is one fixed token and gets none).
            const std::size_t samples = 64;
            std::mt19937_64 rng(0);
            const auto normal = [&] {  // Box-Muller on 53-bit uniforms: the same draws on every platform
                const double u1 = (static_cast<double>(rng() >> 11) + 1) * 0x1p-53, u2 = static_cast<double>(rng() >> 11) * 0x1p-53;
                return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
            };
            std::vector<double> logits;
            for (std::size_t m = p.first_query; m <= N; ++m) {
                for (std::size_t r = 0; r < samples; ++r) {
                    logits.assign(m + 1, 0.0);
                    double top = -INFINITY, total = 0;
                    for (std::size_t n = 0; n <= m; ++n) top = std::max(top, logits[n] = k.score(m, n) + (n == 0 ? 0.0 : k.noise[m] * normal()));
                    for (auto& x : logits) total += x = std::exp(x - top);
                    for (std::size_t delta = 0; delta <= std::min(window, m); ++delta) p.by_offset[delta] += logits[m - delta] / total / samples;
                    p.bos += logits[0] / total / samples;
                }
            }
            const double queries = static_cast<double>(N - p.first_query + 1);
            for (auto& x : p.by_offset) x /= queries;
            p.bos /= queries;
            return p;
        }
    }
    for (std::size_t m = p.first_query; m <= N; ++m) {
        double shift = -INFINITY;
        for (std::size_t n = 0; n <= m; ++n) shift = std::max(shift, detail::upper_end(k.score(m, n)));
        weight.assign(m + 1, T(0));
        T total(0);
        for (std::size_t n = 0; n <= m; ++n) total += weight[n] = exp(k.score(m, n) - T(shift));
        for (std::size_t delta = 0; delta <= std::min(window, m); ++delta) p.by_offset[delta] += weight[m - delta] / total;
        p.bos += weight[0] / total;
    }
    const T queries(static_cast<double>(N - p.first_query + 1));
    for (auto& x : p.by_offset) x = x / queries;
    p.bos = p.bos / queries;
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

/// The attention on the offsets of `offsets` (and on BOS when `bos`), averaged over queries W .. N
/// as predict_attention averages.
template <class T>
T mass_on_offsets(const head_kernel<T>& k, std::size_t window, const std::vector<std::size_t>& offsets, bool bos)
{
    const std::size_t N = k.positions, first = std::min(window, N);
    T sum(0);
    for (std::size_t m = first; m <= N; ++m)
        sum += mass_on(k, m, [&](std::size_t n) {
            return (bos && n == 0) || std::find(offsets.begin(), offsets.end(), m - n) != offsets.end();
        });
    return sum / T(static_cast<double>(N - first + 1));
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

enum class certainty_of_bound { holds, undecided };

/// Everything the mean field says about one head.
struct mean_field_evidence {
    std::vector<double> by_offset;  ///< p(delta), delta = 0 .. W
    double bos = 0;
    std::size_t first_query = 0, last_query = 0, window = 0;
    double swing = 0;                      ///< nats over offsets 0 .. W, from the kernel
    std::optional<double> swing_bound;     ///< certified upper bound on the swing (RoPE: per pair; learned: from the kernel), given mu_l
    std::optional<double> swing_bound_every_input;  ///< RoPE: certified for every input the layer's norm can produce
    std::vector<double> by_offset_lower;   ///< certified lower bounds of p(delta) where p(delta) reaches the threshold, else 0 (empty: not certified)
    std::optional<double> top_two_lower;   ///< certified lower bound of the two largest offsets' mass
    std::optional<double> bos_lower;
    double content_deviations = 0;         ///< the bounds hold for content within this many standard deviations
    std::string positions;                 ///< "rope", "nope", "learned"
    std::optional<double> content_spread;  ///< nats: the standard deviation content gives a key's score (mean over queries); nullopt without it
};

struct mean_field_request {
    bool certify = true;
    double offset_threshold = 0.5, sink_threshold = 0.3;
    double content_deviations = 2;  ///< the certificates hold for content within this many standard deviations
};

/// The prediction for head h (double), and certificates where a label could rest on them: a
/// lower bound of p(delta) where the prediction reaches offset_threshold, of p(BOS) where it
/// reaches sink_threshold, and the swing bounds.
inline mean_field_evidence mean_field_of(const model::head_weights& h, const proxy_layer& input, bool learned_positions,
                                         const std::optional<io::rope_config>& rope, const model::norm_weights& norm, const mean_field_settings& s,
                                         const mean_field_request& r, const content_covariance* content = nullptr)
{
    mean_field_evidence e;
    e.window = s.window;
    e.positions = learned_positions ? "learned" : rope ? "rope" : "nope";
    const auto kernel = mean_field_kernel<double>(h, input, learned_positions, rope, content);
    const auto p = predict_attention(kernel, s.window);
    if (!kernel.noise.empty()) {
        double sum = 0;
        for (const double x : kernel.noise) sum += x;
        e.content_spread = sum / static_cast<double>(kernel.noise.size());
    }
    e.by_offset = p.by_offset, e.bos = p.bos, e.first_query = p.first_query, e.last_query = p.last_query;
    e.swing = positional_swing(kernel, s.window);
    const std::size_t d = h.w_q.shape()[0];
    if (!r.certify) return e;
    std::vector<double> top = e.by_offset;
    std::sort(top.rbegin(), top.rend());
    const bool wants_offset = top.size() >= 2 && top[0] + top[1] >= r.offset_threshold;
    const bool wants_bos = e.bos >= r.sink_threshold;
    const bool scaled = rope && rope->scaling && rope->scaling->type != "linear";  // no enclosure of llama3's blended angles
    if ((wants_offset || wants_bos) && !scaled) {
        const auto kernel_i = mean_field_kernel<interval>(h, input, learned_positions, rope, content, content ? r.content_deviations : 0.0);
        std::vector<std::size_t> order(e.by_offset.size());
        for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return e.by_offset[a] > e.by_offset[b]; });
        e.by_offset_lower.assign(e.by_offset.size(), 0.0);
        for (std::size_t k = 0; k < e.by_offset.size(); ++k)
            if (e.by_offset[k] >= r.offset_threshold) e.by_offset_lower[k] = mass_on_offsets(kernel_i, s.window, {k}, false).lo();
        if (order.size() >= 2) e.top_two_lower = mass_on_offsets(kernel_i, s.window, {order[0], order[1]}, false).lo();
        if (wants_bos) e.bos_lower = mass_on_offsets(kernel_i, s.window, {}, true).lo();
        e.content_deviations = content ? r.content_deviations : 0.0;
    }
    if (learned_positions) {
        e.swing_bound = positional_swing(mean_field_kernel<interval>(h, input, true, rope), s.window).hi();
    } else if (!rope) {
        e.swing_bound = 0.0, e.swing_bound_every_input = 0.0;  // no rotation: the offset enters no score
    } else if (!scaled) {
        const rope_layout layout{d, rope->rotary_dim, rope->pairing};
        const auto theta = forward::rope_theta<interval>(*rope);
        const auto q = project<interval>(h.w_q, h.b_q, input.mean), k = project<interval>(h.w_k, h.b_k, input.mean);
        e.swing_bound = rope_swing_bound(pair_norms(q, layout), pair_norms(k, layout), theta, s.window, d).hi();
        const interval radius = norm_output_bound(norm);
        e.swing_bound_every_input =
            rope_swing_bound(pair_norm_bounds(h.w_q, h.b_q, layout, radius), pair_norm_bounds(h.w_k, h.b_k, layout, radius), theta, s.window, d).hi();
    }
    return e;
}

} // namespace qkov::scan
