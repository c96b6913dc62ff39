// High-precision validation of T2 (the QK and OV circuits have rank <= d_head), B2 (a bias is
// absorbed into an offset of x) and B3 (RoPE is absorbed into M_d, M_s around one Omega), at
// d_head x d_model sizes up to 64 x 768, with the library's own circuits (ov_circuit,
// bias_offset, query_rotation_map, key_rotation_map, rope_rotation) instantiated with a
// Boost.Multiprecision scalar T. Matrices with a d_model dimension live on the heap (heap.hpp).
//
// Factors and vectors come from random_factor.hpp.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/circuits/absorption.hpp"
#include "qkov/circuits/qk_ov.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/matrix/matrix.hpp"
#include "qkov/matrix/norms.hpp"
#include "qkov/matrix/random_integer_matrix.hpp"
#include "qkov/precision/cholesky.hpp"
#include "qkov/precision/heap.hpp"
#include "qkov/precision/numeric_pseudo_inverse.hpp"
#include "qkov/precision/random_factor.hpp"
#include "qkov/precision/residual.hpp"
#include "qkov/precision/rope_residuals.hpp"

namespace qkov::precision {

/// Entry-wise |M| in double.
template <class T, std::size_t R, std::size_t C>
std::vector<double> absolute_entries(const matrix<T, R, C>& m)
{
    std::vector<double> a(R * C);
    for (std::size_t k = 0; k < R * C; ++k) a[k] = magnitude(m.entries()[k]);
    return a;
}

/// |A| x for a row-major R x C array of magnitudes and a nonnegative vector x.
inline std::vector<double> absolute_product(const std::vector<double>& a, std::size_t rows, std::size_t cols,
                                            const std::vector<double>& x, bool transposed = false)
{
    std::vector<double> y(transposed ? cols : rows, 0.0);
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
            if (transposed)
                y[j] += a[i * cols + j] * x[i];
            else
                y[i] += a[i * cols + j] * x[j];
        }
    return y;
}

/// T2: with W_V = A [I_d | B] (d x D), the D - d vectors v_j = (-B e_j ; e_j) span its kernel
/// exactly, so rank(W_out W_V) <= d means W_out W_V v_j = 0 (and likewise W_Q^T W_K with W_K =
/// W_V). The D x D circuits are formed densely (the product whose rank the claim is about) and
/// applied to `kernel_samples` of the v_j.
///
/// Bound (forward error analysis, gamma_n ~ n u): W_V is computed with |E_1| <= d u |A||[I|B]|,
/// the circuit with |E_2| <= d u |W_out||A||[I|B]| (1 + d u), the product with v adds D u |circuit||v|;
/// the exact W_out A [I|B] v is zero, so |computed W_out W_V v| <= (2d + D + 4) u S with
/// S = |W_out||A||[I|B]||v| (entry-wise magnitudes, evaluated in double). Residual: max over
/// entries and samples of |W_out W_V v| / S.
template <class T, std::size_t d, std::size_t D>
residual circuit_rank_residual(std::size_t kernel_samples, std::uint64_t seed)
{
    static_assert(D > d, "qkov: a rank bound needs d_head < d_model");
    const auto a = random_factor<T, d, d>(seed);
    auto basis = random_factor<T, d, D>(seed + 1);  // becomes [I | B]
    for (std::size_t i = 0; i < d; ++i)
        for (std::size_t j = 0; j < d; ++j) (*basis)(i, j) = T(i == j ? 1 : 0);
    const auto w_v = on_heap([&] { return *a * *basis; });
    const auto w_q = random_factor<T, d, D>(seed + 2);
    const auto w_q_transposed = on_heap([&] { return transpose(*w_q); });
    const auto w_out = random_factor<T, D, d>(seed + 3);
    // W_Q^T W_K is qk_circuit's product; with W_Q^T already on the heap it is the same
    // D x d times d x D product that ov_circuit forms, so both circuits go through ov_circuit.
    const auto qk = on_heap([&] { return ov_circuit(*w_q_transposed, *w_v); });
    const auto ov = on_heap([&] { return ov_circuit(*w_out, *w_v); });

    const auto abs_a = absolute_entries(*a), abs_basis = absolute_entries(*basis);
    const auto abs_w_q_t = absolute_entries(*w_q_transposed), abs_w_out = absolute_entries(*w_out);
    splitmix64 random(seed + 4);
    if (kernel_samples == 0) throw std::invalid_argument("qkov: T2 residual: no kernel samples (a check of nothing passes nothing)");
    residual r;
    r.bound = (2.0 * d + D + 4) * unit_roundoff<T>();
    for (std::size_t s = 0; s < kernel_samples; ++s) {
        const auto j = static_cast<std::size_t>(random.uniform(0, static_cast<std::int64_t>(D - d) - 1));
        matrix<T, D, 1> v;
        for (std::size_t i = 0; i < d; ++i) v(i, 0) = -(*basis)(i, d + j);
        v(d + j, 0) = T(1);
        const auto through_basis = absolute_product(abs_basis, d, D, absolute_entries(v));
        const auto through_a = absolute_product(abs_a, d, d, through_basis);
        for (const auto* pair : {&abs_w_q_t, &abs_w_out}) {
            const auto scale = absolute_product(*pair, D, d, through_a);
            const auto& circuit = pair == &abs_w_q_t ? *qk : *ov;
            const matrix<T, D, 1> image = circuit * v;
            for (std::size_t i = 0; i < D; ++i) r.record(magnitude(image(i, 0)) / scale[i]);
        }
    }
    r.note = std::to_string(kernel_samples) + " of the " + std::to_string(D - d) + " kernel vectors, QK and OV";
    return r;
}

/// An estimate of the condition number of a symmetric positive definite G (in double): power
/// iteration for the largest eigenvalue, inverse iteration (Cholesky) for the smallest. Both
/// approach their eigenvalue from the inside, so the estimate can fall short of the true value;
/// the bounds that use it multiply it by 4.
template <std::size_t N>
double condition_estimate(const matrix<double, N, N>& g)
{
    const cholesky<double, N> factor(g);
    matrix<double, N, 1> up, down;
    for (std::size_t i = 0; i < N; ++i) up(i, 0) = down(i, 0) = 1.0 + 0.01 * static_cast<double>(i);
    double largest = 0, smallest_inverse = 0;
    for (int it = 0; it < 200; ++it) {
        up = g * up;
        factor.solve_in_place(down);
        double nu = 0, nd = 0;
        for (std::size_t i = 0; i < N; ++i) nu += up(i, 0) * up(i, 0), nd += down(i, 0) * down(i, 0);
        nu = std::sqrt(nu), nd = std::sqrt(nd);
        up *= 1 / nu;
        down *= 1 / nd;
        largest = nu, smallest_inverse = nd;  // once the vectors are normalized, the norms converge to the eigenvalues
    }
    return largest * smallest_inverse;
}

struct absorption_residuals {
    residual bias;  ///< B2
    residual rope;  ///< B3
};

/// B2 and B3 in the row convention of seed 003: W_Q, W_K are D x d (full column rank), W^+ from
/// numeric_pseudo_inverse.hpp.
///   B2: (x_d^T W_Q + b_Q^T)(W_K^T x_s + b_K) = (x_d + c_d)^T W_Q W_K^T (x_s + c_s)
///   B3: (x_d^T M_d) W_Q W_K^T (M_s x_s) = x_d^T W_Q R_{p_d - p_s} W_K^T x_s, with the D x D maps
///       M_d = W_Q R_{p_d} W_Q^+, M_s = (W_K^T)^+ R_{p_s}^T W_K^T formed densely on the heap.
/// Bound: the pseudo-inverse satisfies W^+ W = I up to about d kappa(W^T W) u (normal equations
/// through Cholesky); the products add about (D + d) u relative to the product of the norms of
/// their factors. Both sides are compared relative to that product of norms, N (double), so the
/// residual is at most (4 d kappa + 4 (D + d) + 8P + 40) u with kappa the larger estimated
/// condition number of the two Gram matrices times 4 (see condition_estimate) and P the largest
/// position (B3's rotations; see rope_residuals.hpp).
///
/// B3's maps go through absorption.hpp, whose rotate_columns forms D x d temporaries on the
/// stack: at D = 768 and 100 digits keep d small there (validation.hpp uses d = 16), or pass
/// with_rope = false to check B2 alone at a larger d.
template <class T, std::size_t d, std::size_t D>
absorption_residuals absorption_residual(double base, std::int64_t max_position, std::size_t samples, std::uint64_t seed,
                                         bool with_rope = true)
{
    require_rope_residual_parameters(base, max_position, samples);
    constexpr rope_layout L = interleaved_layout(d);
    using R = rope_rotation<T, L>;
    const auto angles = standard_angles<T, d>(base);
    const auto w_q = random_factor<T, D, d>(seed), w_k = random_factor<T, D, d>(seed + 1);
    const auto w_q_plus = full_column_rank_pseudo_inverse(*w_q), w_k_plus = full_column_rank_pseudo_inverse(*w_k);
    const auto w_k_transpose_plus = on_heap([&] { return transpose(*w_k_plus); });  // (W_K^T)^+ = (W_K^+)^T
    const double kappa = 4 * std::max(condition_estimate(matrix_cast<double>(gram(*w_q))),
                                      condition_estimate(matrix_cast<double>(gram(*w_k))));
    const auto b_q = *random_factor<T, d, 1>(seed + 2), b_k = *random_factor<T, d, 1>(seed + 3);
    const matrix<T, D, 1> c_d = bias_offset(b_q, *w_q_plus), c_s = bias_offset(b_k, *w_k_plus);

    const double frobenius_q = std::sqrt(static_cast<double>(frobenius_norm_squared(*w_q)));
    const double frobenius_k = std::sqrt(static_cast<double>(frobenius_norm_squared(*w_k)));
    auto norm = [](const auto& v) { return std::sqrt(static_cast<double>(frobenius_norm_squared(v))); };
    const double u = unit_roundoff<T>();
    absorption_residuals out;
    out.bias.bound = (4 * d * kappa + 4.0 * (D + d) + 40) * u;
    out.rope.bound = (4 * d * kappa + 4.0 * (D + d) + 8.0 * static_cast<double>(max_position) + 40) * u;

    splitmix64 random(seed + 4);
    for (std::size_t s = 0; s < samples; ++s) {
        const auto x_d = *random_factor<T, D, 1>(random.next()), x_s = *random_factor<T, D, 1>(random.next());
        const matrix<T, 1, d> query = transpose(x_d) * *w_q, key = transpose(x_s) * *w_k;

        // B2
        const T direct = ((query + transpose(b_q)) * transpose(key + transpose(b_k)))(0, 0);
        const T absorbed = ((transpose(x_d + c_d) * *w_q) * transpose(transpose(x_s + c_s) * *w_k))(0, 0);
        out.bias.record(magnitude(T(direct - absorbed)) /
                        ((norm(x_d) + norm(c_d)) * frobenius_q * (norm(x_s) + norm(c_s)) * frobenius_k));

        if (!with_rope) continue;
        // B3
        const std::int64_t p_d = random.uniform(0, max_position), p_s = random.uniform(0, max_position);
        const auto m_d = on_heap([&] { return query_rotation_map(*w_q, *w_q_plus, R::at(angles, p_d)); });
        const auto m_s = on_heap([&] { return key_rotation_map(*w_k, *w_k_transpose_plus, R::at(angles, p_s)); });
        const matrix<T, 1, D> left = transpose(x_d) * *m_d;
        const matrix<T, D, 1> right = *m_s * x_s;
        const T rotated = ((left * *w_q) * transpose(transpose(right) * *w_k))(0, 0);
        const T relative = (query * (R::at(angles, p_d - p_s) * transpose(key)))(0, 0);
        out.rope.record(magnitude(T(rotated - relative)) / (norm(x_d) * frobenius_q * norm(x_s) * frobenius_k));
    }
    out.bias.note = "kappa(W^T W) <= " + std::to_string(kappa / 4) + " (estimated)";
    out.rope.note = out.bias.note;
    return out;
}

} // namespace qkov::precision
