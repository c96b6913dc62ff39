// Measuring what a head's W_q and W_k say about position and content (the result types are
// head_structure.hpp's; docs/SCAN-LABELS.md has the definitions and why): the one-direction shares
// (claim R7), the direction a head reads, RoPE's per-pair energy and phase (claims B4, R12), and the
// offset profile of the constant the head reads, with a certified statement about its maximum.
//
// Conventions: column convention (head_weights.hpp), query q = W_q x + b_q; RoPE turns pair l of a
// vector at position t by t theta_l (head_attention.hpp's rotation). The score of a query at m
// against a key at n = m - delta is q^T R_{-delta} k, and for pair l with coordinates (a, b)
//   q_l^T R(-delta theta_l) k_l = cos(delta theta_l) (q_a k_a + q_b k_b) - sin(delta theta_l) (q_b k_a - q_a k_b).
#pragma once

#include <cmath>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "qkov/circuits/rope_layout.hpp"
#include "qkov/forward/rope_schedule.hpp"
#include "qkov/io/model_config.hpp"
#include "qkov/model/head_weights.hpp"
#include "qkov/scalar/interval.hpp"
#include "qkov/scalar/interval_functions.hpp"
#include "qkov/scan/checked_svd.hpp"
#include "qkov/scan/head_structure.hpp"
#include "qkov/scan/thin_qr.hpp"

namespace qkov::scan {

/// sigma_1^2 / sum sigma_i^2 (0 for a zero matrix).
inline double top_share(const vector& singular_values)
{
    double total = 0;
    for (const double s : singular_values) total += s * s;
    return total == 0 ? 0.0 : singular_values(0) * singular_values(0) / total;
}

/// The direction (unit, length D) a d x D projection reads most: its top right singular vector,
/// Q U[:, 0] from the projection's transpose Q R and R = U S V^T.
inline vector top_read_direction(const thin_qr& f)
{
    const auto svd = checked_svd(f.r);
    const std::size_t D = f.q.shape()[0], d = f.q.shape()[1];
    vector u = xt::zeros<double>({D});
    for (std::size_t i = 0; i < D; ++i)
        for (std::size_t j = 0; j < d; ++j) u(i) += f.q(i, j) * svd.u(j, 0);
    return u;
}

/// Whether the scan knows the angles of this RoPE scaling (forward/rope_schedule.hpp's); for any
/// other type (which the config reader refuses) the pairs are described with the unscaled schedule
/// and no offset label is given.
inline bool angles_modelled(const io::rope_config& rope) { return forward::scaling_applied(rope); }

/// The model's angles in double, or the unscaled schedule when its scaling is not modelled.
inline std::vector<double> described_angles(io::rope_config rope)
{
    if (!angles_modelled(rope)) rope.scaling.reset();
    return forward::rope_theta<double>(rope);
}

/// Per-pair energy, phase and slowness of a head's QK circuit (docs/SCAN-LABELS.md).
inline rope_structure measure_rope(const model::head_weights& h, const io::rope_config& rope, std::size_t context)
{
    const std::size_t d = h.w_q.shape()[0], D = h.w_q.shape()[1];
    const rope_layout layout{d, rope.rotary_dim, rope.pairing};
    const auto theta = described_angles(rope);
    const auto row_dot = [&](const matrix& a, std::size_t i, const matrix& b, std::size_t j) {
        double s = 0;
        for (std::size_t c = 0; c < D; ++c) s += a(i, c) * b(j, c);
        return s;
    };
    rope_structure r;
    r.context = context;
    r.angles_modelled = angles_modelled(rope);
    r.angles = "base " + std::to_string(rope.base) + (rope.scaling ? ", " + rope.scaling->type + " scaling x" + std::to_string(rope.scaling->factor) : "");
    std::vector<double> energy;
    for (std::size_t l = 0; l < layout.pairs(); ++l) {
        const std::size_t a = layout.first(l), b = layout.second(l);
        // Mean over rotations R of ||A^T R B||_F^2 for the pair's 2 x D rows A, B: tr(G_A) tr(G_B) / 2.
        const double qq = row_dot(h.w_q, a, h.w_q, a) + row_dot(h.w_q, b, h.w_q, b);
        const double kk = row_dot(h.w_k, a, h.w_k, a) + row_dot(h.w_k, b, h.w_k, b);
        energy.push_back(qq * kk / 2);
        // tr(A^T R(phi) B) = cos(phi) (M_aa + M_bb) + sin(phi) (M_ab - M_ba) with M = B A^T.
        const double m_aa = row_dot(h.w_k, a, h.w_q, a), m_bb = row_dot(h.w_k, b, h.w_q, b);
        const double m_ab = row_dot(h.w_k, a, h.w_q, b), m_ba = row_dot(h.w_k, b, h.w_q, a);
        pair_structure p;
        p.pair = l;
        p.theta = theta[l];
        p.phase = std::atan2(m_ab - m_ba, m_aa + m_bb);
        p.preferred_offset = -p.phase / theta[l];
        p.slow = theta[l] * static_cast<double>(context) < std::numbers::pi / 2;
        r.pairs.push_back(p);
    }
    // The unrotated block: ||A^T B||_F^2 = tr(G_A G_B) with its r x r Grams.
    double unrotated = 0;
    for (std::size_t i = layout.rotary_dim; i < d; ++i)
        for (std::size_t j = layout.rotary_dim; j < d; ++j) unrotated += row_dot(h.w_q, i, h.w_q, j) * row_dot(h.w_k, j, h.w_k, i);
    double total = unrotated;
    for (const double e : energy) total += e;
    std::size_t slow_pairs = 0;
    for (std::size_t l = 0; l < r.pairs.size(); ++l) {
        r.pairs[l].energy_share = total == 0 ? 0.0 : energy[l] / total;
        if (r.pairs[l].slow) r.slow_share += r.pairs[l].energy_share, ++slow_pairs;
    }
    r.unrotated_share = total == 0 ? 0.0 : unrotated / total;
    r.slow_share += r.unrotated_share;
    r.slow_baseline = static_cast<double>(2 * slow_pairs + (d - layout.rotary_dim)) / static_cast<double>(d);
    return r;
}

/// q0 = W x + b for one residual vector x, in T (double, or intervals enclosing every rounding).
template <class T>
std::vector<T> project(const matrix& w, const vector& b, const vector& x)
{
    const std::size_t d = w.shape()[0], D = w.shape()[1];
    std::vector<T> out(d, T(0));
    for (std::size_t i = 0; i < d; ++i) {
        T s = b.size() == d ? T(b(i)) : T(0);
        for (std::size_t j = 0; j < D; ++j) s += T(w(i, j)) * T(x(j));
        out[i] = s;
    }
    return out;
}

/// The vector v with q0^T R_{-delta} k = v^T k for every key k, generic over the scalar: the query
/// as the key at offset delta sees it. Per pair (a, b):
///   v_a = cos(delta theta_l) q_a - sin(delta theta_l) q_b,   v_b = cos(delta theta_l) q_b + sin(delta theta_l) q_a;
/// the unrotated dimensions pass unchanged.
template <class T>
std::vector<T> query_at_offset(const std::vector<T>& q0, const rope_layout& layout, const std::vector<T>& theta, std::size_t delta)
{
    using std::cos, std::sin;
    std::vector<T> v = q0;
    for (std::size_t l = 0; l < layout.pairs(); ++l) {
        const std::size_t a = layout.first(l), b = layout.second(l);
        const T angle = T(static_cast<double>(delta)) * theta[l];
        const T c = cos(angle), s = sin(angle);
        v[a] = c * q0[a] - s * q0[b];
        v[b] = c * q0[b] + s * q0[a];
    }
    return v;
}

/// s(delta) = q0^T R_{-delta} k0, generic over the scalar: the one formula the float profile, the
/// certificate and the mean field (mean_field.hpp) all evaluate.
template <class T>
T offset_score(const std::vector<T>& q0, const std::vector<T>& k0, const rope_layout& layout, const std::vector<T>& theta, std::size_t delta)
{
    const auto v = query_at_offset(q0, layout, theta, delta);
    T s(0);
    for (std::size_t i = 0; i < layout.d; ++i) s += v[i] * k0[i];
    return s;
}

/// The offset profile of the constant c a head reads, and (certify) its maximum certified.
inline offset_profile measure_offset_profile(const model::head_weights& h, const io::rope_config& rope, const vector& c, std::size_t context, bool certify)
{
    const std::size_t d = h.w_q.shape()[0];
    const rope_layout layout{d, rope.rotary_dim, rope.pairing};
    const auto q0 = project<double>(h.w_q, h.b_q, c), k0 = project<double>(h.w_k, h.b_k, c);
    const auto theta = described_angles(rope);
    offset_profile p;
    for (std::size_t delta = 0; delta <= context; ++delta) p.score.push_back(offset_score(q0, k0, layout, theta, delta));
    double top = -INFINITY, bottom = INFINITY, runner_up = -INFINITY;
    for (std::size_t delta = 0; delta < p.score.size(); ++delta) {
        if (p.score[delta] > top) top = p.score[delta], p.best = delta;
        bottom = std::min(bottom, p.score[delta]);
    }
    for (std::size_t delta = 0; delta < p.score.size(); ++delta)
        if (delta != p.best) runner_up = std::max(runner_up, p.score[delta]);
    p.runner_up_fraction = top > bottom ? (top - runner_up) / (top - bottom) : 0.0;
    if (!certify) return p;

    // The same formula over intervals: the stored weights and c are exact doubles, every product,
    // sum, power and cosine is enclosed, so a positive lower bound is a proof for these inputs.
    offset_certificate cert;
    cert.offset = p.best;
    cert.last = context;
    if (!forward::angles_enclosed(rope)) {
        // No enclosure of these angles (llama3's blend, or a type not modelled): never 'holds'.
        cert.margin_lower = -INFINITY, cert.margin_upper = INFINITY, cert.undecided_offsets = context;
        p.certificate = cert;
        return p;
    }
    const auto qi = project<interval>(h.w_q, h.b_q, c), ki = project<interval>(h.w_k, h.b_k, c);
    const auto theta_i = forward::rope_theta<interval>(rope);
    const interval best = offset_score(qi, ki, layout, theta_i, p.best);
    cert.margin_lower = INFINITY, cert.margin_upper = INFINITY;
    bool refuted = false;
    for (std::size_t delta = 0; delta <= context; ++delta) {
        if (delta == p.best) continue;
        const interval gap = best - offset_score(qi, ki, layout, theta_i, delta);
        cert.margin_lower = std::min(cert.margin_lower, gap.lo());
        cert.margin_upper = std::min(cert.margin_upper, gap.hi());
        if (gap.hi() < 0) refuted = true;
        if (gap.lo() <= 0) ++cert.undecided_offsets;
    }
    cert.status = refuted ? certificate_status::fails : cert.undecided_offsets == 0 ? certificate_status::holds : certificate_status::undecided;
    p.certificate = cert;
    return p;
}

} // namespace qkov::scan
