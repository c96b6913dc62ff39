// Claim B4 on a model's own weights: a head's biases and RoPE (any pairing, partial rotary) reduce
// to one bilinear form per offset. With the augmented input x~ = (x, 1) and the augmented factors
// A~ = (W_q | b_q), B~ = (W_k | b_k), the score of query m against key n is
//   s(m, n) = x~_m^T A~^T R_{-(m - n)} B~ x~_n,
// a form that depends on the positions only through m - n (offset_score, structure_measurement.hpp). The
// check compares it with the head's scores computed as a forward pass does, each query and key
// rotated at its absolute position (model/head_attention.hpp), on probe inputs.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>

#include "qkov/model/head_attention.hpp"
#include "qkov/scan/structure_measurement.hpp"

namespace qkov::scan {

/// n probe residual vectors (seeded Gaussian rows), the same for every head of a model.
inline matrix probe_inputs(std::size_t n, std::size_t D)
{
    std::mt19937_64 random(4);
    std::normal_distribution<double> gaussian;
    matrix x = xt::empty<double>({n, D});
    for (auto& v : x) v = gaussian(random);
    return x;
}

/// max |s_absorbed - s_direct| / max |s_direct| over queries m and keys n <= m of the probe x.
inline double absorbed_form_gap(const model::head_weights& h, const io::rope_config& rope, const matrix& x)
{
    const std::size_t n = x.shape()[0], d = h.w_q.shape()[0];
    const rope_layout layout{d, rope.rotary_dim, rope.pairing};
    const matrix q_rotated = model::projected_rotated(x, h.w_q, h.b_q, rope), k_rotated = model::projected_rotated(x, h.w_k, h.b_k, rope);
    const auto theta = forward::rope_theta<double>(rope);
    std::vector<std::vector<double>> q(n), k(n);
    for (std::size_t t = 0; t < n; ++t) {
        const vector row = xt::view(x, t, xt::all());
        q[t] = project<double>(h.w_q, h.b_q, row), k[t] = project<double>(h.w_k, h.b_k, row);
    }
    double gap = 0, scale = 0;
    for (std::size_t m = 0; m < n; ++m)
        for (std::size_t j = 0; j <= m; ++j) {
            double direct = 0;
            for (std::size_t i = 0; i < d; ++i) direct += q_rotated(m, i) * k_rotated(j, i);
            gap = std::max(gap, std::abs(offset_score(q[m], k[j], layout, theta, m - j) - direct));
            scale = std::max(scale, std::abs(direct));
        }
    return scale == 0 ? gap : gap / scale;
}

} // namespace qkov::scan
