// The QK and OV circuits of one attention head, column convention (seed 002; docs/ARCHITECTURE.md):
// tokens are the columns of E (D x n); W_Q, W_K, W_V are d x D, W_out is D x d.
//   scores  S = E^T W_Q^T W_K E   (S(i, j) = q_i . k_j: row = query token, column = key token)
//   values  V = W_out W_V E
// The head depends on W_Q, W_K only through W_Q^T W_K and on W_V, W_out only through W_out W_V.
#pragma once

#include <cstddef>

#include "qkov/matrix/matrix.hpp"

namespace qkov {

/// The value side of a head: W_V reads, W_out writes; the OV circuit is W_out W_V.
template <class T, std::size_t D, std::size_t d>
struct ov_factors {
    matrix<T, d, D> w_v;    ///< reads:  d x D
    matrix<T, D, d> w_out;  ///< writes: D x d
};

/// W_Q^T W_K (D x D, rank <= d).
template <class T, std::size_t d, std::size_t D>
constexpr matrix<T, D, D> qk_circuit(const matrix<T, d, D>& w_q, const matrix<T, d, D>& w_k)
{
    return transpose(w_q) * w_k;
}

/// W_out W_V (D x D, rank <= d).
template <class T, std::size_t d, std::size_t D>
constexpr matrix<T, D, D> ov_circuit(const matrix<T, D, d>& w_out, const matrix<T, d, D>& w_v)
{
    return w_out * w_v;
}

/// Pre-softmax scores from the factors: (W_Q E)^T (W_K E), never forming the D x D circuit.
template <class T, std::size_t d, std::size_t D, std::size_t n>
constexpr matrix<T, n, n> attention_scores(const matrix<T, d, D>& w_q, const matrix<T, d, D>& w_k,
                                           const matrix<T, D, n>& tokens)
{
    return transpose(w_q * tokens) * (w_k * tokens);
}

/// Pre-softmax scores from the circuit alone: E^T (W_Q^T W_K) E.
template <class T, std::size_t D, std::size_t n>
constexpr matrix<T, n, n> attention_scores(const matrix<T, D, D>& qk, const matrix<T, D, n>& tokens)
{
    return transpose(tokens) * (qk * tokens);
}

/// What the head writes for each attended token: W_out (W_V E), from the factors.
template <class T, std::size_t d, std::size_t D, std::size_t n>
constexpr matrix<T, D, n> head_values(const matrix<T, D, d>& w_out, const matrix<T, d, D>& w_v,
                                      const matrix<T, D, n>& tokens)
{
    return w_out * (w_v * tokens);
}

} // namespace qkov
