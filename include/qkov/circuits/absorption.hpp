// Bias and RoPE absorbed into one bilinear form per head (seed 003, its Appendix B).
//
// Row convention, as seed 003 writes it: W_Q, W_K are D x d, a query row is x^T W_Q + b_Q^T,
// and the score is A'_ds = x_d^T Omega x_s with Omega = W_Q W_K^T. Both W_Q and W_K must have
// full column rank (pseudo_inverse refuses otherwise):
//   bias:  c_d^T = b_Q^T W_Q^+,  c_s = (b_K^T W_K^+)^T    so  x^T W_Q + b_Q^T = (x + c_d)^T W_Q
//   RoPE:  M_d = W_Q R_d W_Q^+,  M_s = (W_K^T)^+ R_s^T W_K^T
// and then (x_d^T M_d) Omega (M_s x_s) = x_d^T W_Q R_d R_s^T W_K^T x_s. A rotation acts on the
// right of a query row here; rope_rotation stores the column-convention matrix, so W R is
// formed as (R^T W^T)^T.
#pragma once

#include <cstddef>

#include "qkov/circuits/rope.hpp"
#include "qkov/matrix/matrix.hpp"
#include "qkov/matrix/pseudo_inverse.hpp"

namespace qkov {

/// W R for a D x d matrix W and a rotation R (row convention), block by block.
template <class T, rope_layout L, std::size_t D>
constexpr matrix<T, D, L.d> rotate_columns(const matrix<T, D, L.d>& w, const rope_rotation<T, L>& r)
{
    return transpose(transpose(r) * transpose(w));
}

/// The offset (b^T W^+)^T of a bias b, given W^+ (exact, or computed in high precision by
/// precision/numeric_pseudo_inverse.hpp): x^T W + b^T = (x + offset)^T W when W has full column rank.
template <class T, std::size_t D, std::size_t d>
constexpr matrix<T, D, 1> bias_offset(const matrix<T, d, 1>& b, const matrix<T, d, D>& w_plus)
{
    return transpose(transpose(b) * w_plus);
}

/// The query-side offset c_d = (b_Q^T W_Q^+)^T, so that x^T W_Q + b_Q^T = (x + c_d)^T W_Q.
template <class T, std::size_t D, std::size_t d>
constexpr matrix<T, D, 1> query_bias_offset(const matrix<T, D, d>& w_q, const matrix<T, d, 1>& b_q)
{
    return bias_offset(b_q, pseudo_inverse(w_q));
}

/// The key-side offset c_s = (b_K^T W_K^+)^T, so that W_K^T x + b_K = W_K^T (x + c_s).
template <class T, std::size_t D, std::size_t d>
constexpr matrix<T, D, 1> key_bias_offset(const matrix<T, D, d>& w_k, const matrix<T, d, 1>& b_k)
{
    return bias_offset(b_k, pseudo_inverse(w_k));
}

/// M_d = W_Q R_d W_Q^+, given W_Q^+ (computed once per head, exactly, by pseudo_inverse).
template <class T, rope_layout L, std::size_t D>
constexpr matrix<T, D, D> query_rotation_map(const matrix<T, D, L.d>& w_q, const matrix<T, L.d, D>& w_q_plus,
                                             const rope_rotation<T, L>& r_d)
{
    return rotate_columns(w_q, r_d) * w_q_plus;
}

/// M_s = (W_K^T)^+ R_s^T W_K^T, given (W_K^T)^+.
template <class T, rope_layout L, std::size_t D>
constexpr matrix<T, D, D> key_rotation_map(const matrix<T, D, L.d>& w_k, const matrix<T, D, L.d>& w_k_transpose_plus,
                                           const rope_rotation<T, L>& r_s)
{
    return w_k_transpose_plus * (transpose(r_s) * transpose(w_k));
}

} // namespace qkov
