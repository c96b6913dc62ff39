// The scan's certified bounds recomputed at 50 digits from what they are conditional on, written
// here apart from the library's mean field (scan/mean_field.hpp) and its interval arithmetic: from
// a head's weights, its layer's proxy rows and mu_l, and the widths each score was allowed to move
// by (scan/proxy_dump.hpp), the smallest attention mass any scores within the widths give.
//
// The definitions, as docs/SCAN-LABELS.md states them:
//   RoPE / NoPE: q = W_q mu + b_q, k = W_k mu + b_k, k_bos = W_k x_0 + b_k (x_0 the proxy's row 0);
//     the score of query m on key n >= 1 is (R_{m-n} q) . k / sqrt(d), on BOS (R_m q) . k_bos /
//     sqrt(d), R_delta turning each RoPE pair (a, b) by delta theta_l:
//     (R q)_a = cos q_a - sin q_b, (R q)_b = sin q_a + cos q_b; theta_l = base^(-2l / rotary_dim),
//     divided by a linear scaling's factor.
//   Learned positions: q_m = W_q x_m + b_q, k_n = W_k x_n + b_k, score q_m . k_n / sqrt(d).
//   The attention of query m on a set S of keys, with every score free to move within [s + lower,
//   s + upper]: smallest when the keys of S sit at their lower ends and the others at their upper
//   ends (the mass grows with a score in S and falls with one outside).
//   Averaged over queries: previous token (S = {m - 1}) and BOS (S = {0}) over 1 .. N; offsets
//   (S = {m - k} or two of them) over min(W, N) .. N.
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

#include <boost/multiprecision/mpfr.hpp>

#include "qkov/io/model_config.hpp"
#include "qkov/model/head_weights.hpp"

namespace qkov::test {

using real50 = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<50>, boost::multiprecision::et_off>;

/// What one head's certificates read.
struct certificate_inputs {
    const model::head_weights* head = nullptr;
    std::vector<std::vector<double>> proxy;  ///< (N + 1) rows of D
    std::vector<double> mean;                ///< mu_l
    bool learned_positions = false;
    std::optional<io::rope_config> rope;     ///< the layer's (nullopt: none)
    std::vector<double> lower, upper;        ///< the widths (empty: none); mean_field_evidence.hpp's layout
};

class certificate_reference {
public:
    explicit certificate_reference(const certificate_inputs& in) : in_(in), N_(in.proxy.size() - 1)
    {
        const auto& h = *in.head;
        d_ = h.w_q.shape()[0];
        scale_ = 1 / boost::multiprecision::sqrt(real50(static_cast<double>(d_)));
        const auto project = [&](const model::matrix& w, const model::vector& b, const std::vector<double>& x) {
            std::vector<real50> out(d_);
            for (std::size_t i = 0; i < d_; ++i) {
                real50 s = b.size() == d_ ? real50(b(i)) : real50(0);
                for (std::size_t j = 0; j < x.size(); ++j) s += real50(w(i, j)) * real50(x[j]);
                out[i] = s;
            }
            return out;
        };
        scores_.assign((N_ + 1) * (N_ + 1), real50(0));
        if (in.learned_positions) {
            std::vector<std::vector<real50>> q, k;
            for (const auto& row : in.proxy) q.push_back(project(h.w_q, h.b_q, row)), k.push_back(project(h.w_k, h.b_k, row));
            for (std::size_t m = 0; m <= N_; ++m)
                for (std::size_t n = 0; n <= m; ++n) scores_[m * (N_ + 1) + n] = dot(q[m], k[n]) * scale_;
            return;
        }
        const auto q = project(h.w_q, h.b_q, in.mean), k = project(h.w_k, h.b_k, in.mean), k_bos = project(h.w_k, h.b_k, in.proxy[0]);
        std::vector<std::vector<real50>> seen;  // R_delta q, delta = 0 .. N
        for (std::size_t delta = 0; delta <= N_; ++delta) seen.push_back(rotated(q, delta));
        for (std::size_t m = 0; m <= N_; ++m) {
            scores_[m * (N_ + 1)] = dot(seen[m], k_bos) * scale_;  // the BOS key sits at position 0: offset m
            for (std::size_t n = 1; n <= m; ++n) scores_[m * (N_ + 1) + n] = dot(seen[m - n], k) * scale_;
        }
    }

    [[nodiscard]] std::size_t positions() const { return N_; }

    /// Query m's smallest attention on the keys `in_set` over the box of allowed scores.
    template <class InSet>
    [[nodiscard]] real50 smallest_mass(std::size_t m, InSet in_set) const
    {
        real50 inside = 0, outside = 0;
        for (std::size_t n = 0; n <= m; ++n) {
            const bool in = in_set(n);
            const real50 s = scores_[m * (N_ + 1) + n] + real50(in ? lower(m, n) : upper(m, n));
            (in ? inside : outside) += boost::multiprecision::exp(s);
        }
        return inside / (inside + outside);
    }

    /// The average of smallest_mass over queries first .. N of the keys at the given offsets (and BOS).
    [[nodiscard]] real50 smallest_average(std::size_t first, const std::vector<std::size_t>& offsets, bool bos) const
    {
        real50 sum = 0;
        for (std::size_t m = first; m <= N_; ++m)
            sum += smallest_mass(m, [&](std::size_t n) {
                if (bos && n == 0) return true;
                for (const std::size_t k : offsets)
                    if (m - n == k) return true;
                return false;
            });
        return sum / real50(static_cast<double>(N_ - first + 1));
    }

    [[nodiscard]] real50 previous_token() const { return smallest_average(1, {1}, false); }
    [[nodiscard]] real50 bos() const { return smallest_average(1, {}, true); }
    [[nodiscard]] real50 offsets(std::size_t window, const std::vector<std::size_t>& ks) const { return smallest_average(std::min(window, N_), ks, false); }

private:
    static real50 dot(const std::vector<real50>& a, const std::vector<real50>& b)
    {
        real50 s = 0;
        for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
        return s;
    }
    /// R_delta q over the layer's RoPE pairs (no rotation without RoPE).
    [[nodiscard]] std::vector<real50> rotated(const std::vector<real50>& q, std::size_t delta) const
    {
        std::vector<real50> v = q;
        if (!in_.rope) return v;
        const auto& r = *in_.rope;
        const std::size_t pairs = r.rotary_dim / 2;
        for (std::size_t l = 0; l < pairs; ++l) {
            real50 theta = boost::multiprecision::pow(real50(r.base), -real50(static_cast<double>(2 * l)) / real50(static_cast<double>(r.rotary_dim)));
            if (r.scaling && r.scaling->type == "linear") theta /= real50(r.scaling->factor);
            const real50 angle = theta * real50(static_cast<double>(delta));
            const real50 c = boost::multiprecision::cos(angle), s = boost::multiprecision::sin(angle);
            const std::size_t a = r.pairing == rope_pairing::interleaved ? 2 * l : l, b = r.pairing == rope_pairing::interleaved ? 2 * l + 1 : l + pairs;
            v[a] = c * q[a] - s * q[b];
            v[b] = s * q[a] + c * q[b];
        }
        return v;
    }
    /// The widths of query m's key n (0 without widths).
    [[nodiscard]] double lower(std::size_t m, std::size_t n) const { return width(in_.lower, m, n); }
    [[nodiscard]] double upper(std::size_t m, std::size_t n) const { return width(in_.upper, m, n); }
    [[nodiscard]] double width(const std::vector<double>& w, std::size_t m, std::size_t n) const
    {
        if (w.empty()) return 0;
        if (in_.learned_positions) return w[m * (N_ + 1) + n];
        return n == 0 ? w[N_ + 1 + m] : w[m - n];
    }

    const certificate_inputs& in_;
    std::size_t N_ = 0, d_ = 0;
    real50 scale_;
    std::vector<real50> scores_;  ///< (N + 1) x (N + 1), row = query, before the widths
};

} // namespace qkov::test
