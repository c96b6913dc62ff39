// The attention of one head on a batch of inputs, from its weights as stored: biases, RoPE (either
// pairing, any rotary_dim) and the 1/sqrt(d) scale included, causal. Used to check a loaded head
// against an independent forward pass and to show what a wrong RoPE pairing changes. A head of a
// model rotates by its own layer's RoPE (model_config::rope_at): none in a NoPE layer.
#pragma once

#include <cmath>
#include <optional>
#include <vector>

#include <xtensor/xview.hpp>

#include "qkov/circuits/rope.hpp"
#include "qkov/io/model_config.hpp"
#include "qkov/model/head_weights.hpp"

namespace qkov::model {

/// q (or k) of every row of x (n x D), rotated for its position.
inline matrix projected_rotated(const matrix& x, const matrix& w, const vector& b, const std::optional<io::rope_config>& rope)
{
    const std::size_t n = x.shape(0), d = w.shape(0), D = w.shape(1);
    matrix out = xt::zeros<double>({n, d});
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t i = 0; i < d; ++i) {
            double s = b.size() == d ? b(i) : 0.0;
            for (std::size_t j = 0; j < D; ++j) s += w(i, j) * x(t, j);
            out(t, i) = s;
        }
    if (!rope) return out;
    const rope_layout layout{d, rope->rotary_dim, rope->pairing};
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t l = 0; l < layout.pairs(); ++l) {
            const double theta = std::pow(rope->base, -2.0 * static_cast<double>(l) / static_cast<double>(layout.rotary_dim));
            const double a = static_cast<double>(t) * theta, c = std::cos(a), s = std::sin(a);
            const double u = out(t, layout.first(l)), v = out(t, layout.second(l));
            out(t, layout.first(l)) = u * c - v * s;
            out(t, layout.second(l)) = v * c + u * s;
        }
    return out;
}

/// Softmax probabilities of the query at the last position over every position (causal).
inline std::vector<double> last_query_probabilities(const matrix& x, const head_weights& h, const std::optional<io::rope_config>& rope)
{
    const matrix q = projected_rotated(x, h.w_q, h.b_q, rope), k = projected_rotated(x, h.w_k, h.b_k, rope);
    const std::size_t n = x.shape(0), d = h.w_q.shape(0), last = n - 1;
    std::vector<double> p(n);
    double top = -INFINITY;
    for (std::size_t m = 0; m < n; ++m) {
        double s = 0;
        for (std::size_t i = 0; i < d; ++i) s += q(last, i) * k(m, i);
        p[m] = s / std::sqrt(static_cast<double>(d));
        top = std::max(top, p[m]);
    }
    double total = 0;
    for (double& v : p) total += (v = std::exp(v - top));
    for (double& v : p) v /= total;
    return p;
}

/// The same for a head of the model `c` describes, with the RoPE of the head's layer.
inline std::vector<double> last_query_probabilities(const matrix& x, const head_weights& h, const io::model_config& c)
{
    return last_query_probabilities(x, h, c.rope_at(h.layer));
}

/// The head's contribution to the residual at the last position: W_o (sum_m p_m v_m).
inline vector last_position_output(const matrix& x, const head_weights& h, const std::vector<double>& p)
{
    const matrix v = projected_rotated(x, h.w_v, h.b_v, std::nullopt);
    const std::size_t d = h.w_v.shape(0), D = h.w_o.shape(0);
    vector z = xt::zeros<double>({d});
    for (std::size_t m = 0; m < p.size(); ++m)
        for (std::size_t i = 0; i < d; ++i) z(i) += p[m] * v(m, i);
    vector out = xt::zeros<double>({D});
    for (std::size_t r = 0; r < D; ++r)
        for (std::size_t i = 0; i < d; ++i) out(r) += h.w_o(r, i) * z(i);
    return out;
}

} // namespace qkov::model
