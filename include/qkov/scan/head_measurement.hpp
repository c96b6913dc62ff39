// Per-head weight metrics (head_metrics.hpp holds them), float64, from the factors of each circuit
// (never a D x D product).
//
// Column convention (head_weights.hpp): W_q, W_k, W_v are d x D, W_o is D x d. The circuits are
//   QK  Omega = W_q^T W_k   (x_m^T Omega x_n is the score; TransformerLens' W_Q W_K^T, claim B1)
//   OV  W_o W_v             (what the head writes for what it reads)
// Each is A B^T with tall D x d factors A, B. With thin QRs A = Q_a R_a and B = Q_b R_b,
// A B^T = Q_a (R_a R_b^T) Q_b^T, so its singular values are those of the d x d core R_a R_b^T
// and its singular vectors are Q_a U and Q_b V (claim B1's paired channels u_k, sigma_k, v_k).
//
// Rank of W_q and W_k (claim B5): their singular values are R's; the numerical rank counts the
// values above numpy's default tolerance max(D, d) * eps * sigma_max with eps of float64 (the
// metrics are computed in float64 whatever the stored dtype). The condition number
// sigma_max / sigma_min is reported only at full rank d: below it the matrix is singular and a
// ratio against a rounding-level sigma_min would be noise.
#pragma once

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xview.hpp>

#include "qkov/model/head_weights.hpp"
#include "qkov/scan/checked_svd.hpp"
#include "qkov/scan/head_metrics.hpp"
#include "qkov/scan/structure_measurement.hpp"
#include "qkov/scan/thin_qr.hpp"

namespace qkov::scan {

/// The spectrum of A B^T for tall D x d factors a, b with thin QRs qa, qb.
///
/// The residual compares the reconstruction with A B^T itself, not with the core: the difference
/// is L R^T with L = [Q_a U S | A], R = [Q_b V | -B] (D x 2d each); with L = Q_L R_L its norm is
/// ||R_L R^T||_F, a 2d x D matrix whose entries carry only rounding-level cancellation. So a bad
/// QR shows up as well as a bad SVD, and no D x D matrix is formed.
inline circuit_spectrum factored_spectrum(const matrix& a, const thin_qr& qa, const matrix& b, const thin_qr& qb)
{
    const matrix core = multiply(qa.r, qb.r, false, true);
    const auto svd = checked_svd(core);
    const std::size_t D = a.shape()[0], d = a.shape()[1];
    matrix left = xt::empty<double>({D, 2 * d}), right = xt::empty<double>({D, 2 * d});
    const matrix us = multiply(qa.q, svd.u), vs = multiply(qb.q, svd.vt, false, true);
    // Plain loops over contiguous rows: xtensor's view assignment steps element by element.
    for (std::size_t i = 0; i < D; ++i)
        for (std::size_t j = 0; j < d; ++j) {
            left(i, j) = us(i, j) * svd.s(j), left(i, d + j) = a(i, j);
            right(i, j) = vs(i, j), right(i, d + j) = -b(i, j);
        }
    const matrix diff = multiply(r_factor(left), right, false, true);
    circuit_spectrum c;
    c.singular_values = svd.s;
    c.frobenius = frobenius(core);
    c.residual = c.frobenius == 0 ? frobenius(diff) : frobenius(diff) / c.frobenius;
    c.driver = svd.driver;
    return c;
}

inline projection_conditioning conditioning(const vector& singular_values, std::size_t D)
{
    const std::size_t d = singular_values.size();
    projection_conditioning c;
    const double top = d ? singular_values(0) : 0.0;
    c.tolerance = static_cast<double>(std::max(D, d)) * std::numeric_limits<double>::epsilon() * top;
    for (std::size_t i = 0; i < d; ++i) c.rank += singular_values(i) > c.tolerance ? 1 : 0;
    if (c.rank == d && d > 0) c.condition = top / singular_values(d - 1);
    return c;
}

/// A head's QRs, kept for the composition scores (composition.hpp) after its metrics are known.
struct head_factors {
    thin_qr q, k, v, o;  ///< of W_q^T, W_k^T, W_v^T (D x d) and W_o (D x d)
};

inline void require_finite(const matrix& m, const model::head_weights& h, const char* what)
{
    for (std::size_t i = 0; i < m.size(); ++i)
        if (!std::isfinite(m.data()[i]))
            throw std::invalid_argument("qkov: layer " + std::to_string(h.layer) + " head " + std::to_string(h.head) + ": " + what + " holds " +
                                        (std::isnan(m.data()[i]) ? "NaN" : "an infinity") + " at (" + std::to_string(i / m.shape()[1]) + ", " +
                                        std::to_string(i % m.shape()[1]) + ")");
}

inline head_factors factor_head(const model::head_weights& h)
{
    require_finite(h.w_q, h, "W_q"), require_finite(h.w_k, h, "W_k"), require_finite(h.w_v, h, "W_v"), require_finite(h.w_o, h, "W_o");
    const std::size_t d = h.w_q.shape()[0], D = h.w_q.shape()[1];
    if (d == 0 || D < d) throw std::invalid_argument("qkov: layer " + std::to_string(h.layer) + " head " + std::to_string(h.head) + ": head dimension " +
                                                     std::to_string(d) + " must be between 1 and the model width " + std::to_string(D));
    return {factor_transpose(h.w_q), factor_transpose(h.w_k), factor_transpose(h.w_v), factor(h.w_o)};
}

/// The metrics of one head from its weights and QRs (copying score left unset).
inline head_metrics measure_head(const model::head_weights& h, const head_factors& f)
{
    const std::size_t d = h.w_q.shape()[0], D = h.w_q.shape()[1];
    head_metrics m;
    m.layer = h.layer, m.head = h.head, m.kv_head = h.kv_head;
    // The singular values of W_q (d x D) are those of R in W_q^T = Q R.
    const vector sq = checked_svd(f.q.r).s, sk = checked_svd(f.k.r).s;
    m.q = conditioning(sq, D);
    m.k = conditioning(sk, D);
    m.structure.one_direction_q = top_share(sq);
    m.structure.one_direction_k = top_share(sk);
    m.qk = factored_spectrum(xt::transpose(h.w_q), f.q, xt::transpose(h.w_k), f.k);
    m.ov = factored_spectrum(h.w_o, f.o, xt::transpose(h.w_v), f.v);
    // ||W_o W_v - I||_F^2 = ||W_o W_v||_F^2 - 2 trace(W_v W_o) + D (trace of the d x d cyclic product).
    const matrix cyclic = multiply(h.w_v, h.w_o);
    double trace = 0;
    for (std::size_t i = 0; i < d; ++i) trace += cyclic(i, i);
    m.ov_identity_distance = std::sqrt(std::max(0.0, m.ov.frobenius * m.ov.frobenius - 2 * trace + static_cast<double>(D)));
    m.ov_identity_floor = std::sqrt(static_cast<double>(D - d));
    return m;
}

} // namespace qkov::scan
