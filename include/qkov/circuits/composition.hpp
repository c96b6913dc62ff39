// Composition of two heads (seed 002; claims T3 and T4), generic over the scalar. Head 1 writes
// into the residual stream through W_out^1; head 2, in a later layer, reads it through W_V^2
// (V-composition). Three objects describe the composition:
//   - the composition matrix W_V^2 W_out^1 (d2 x d1): what head 2 reads of what head 1 writes.
//     It is zero exactly when head 2 does not read head 1; its rank (the number of nonzero
//     singular values) is the dimension of the subspace passed; the sizes of its singular values
//     are the strength (T3);
//   - the virtual head W_net^2 W_net^1 (D x D): the OV circuit of the path through both heads,
//     equal to W_out^2 (W_V^2 W_out^1) W_V^1 (T4);
//   - the composed pattern A^2 A^1 (row = query, as every pattern in circuits/): the weight that
//     query token i puts, through head 2 and then head 1, on token k.
// Two layers with fixed patterns then add W_net^2 W_net^1 X (A^2 A^1)^T to the residual stream,
// beside each head's own term (the path expansion T4 proves).
#pragma once

#include <cstddef>

#include "qkov/circuits/qk_ov.hpp"
#include "qkov/matrix/matrix.hpp"

namespace qkov {

/// W_V^2 W_out^1 (d2 x d1): head 2's value read of head 1's output. Rank <= min(d2, d1).
template <class T, std::size_t d2, std::size_t D, std::size_t d1>
constexpr matrix<T, d2, d1> composition_matrix(const matrix<T, d2, D>& w_v2, const matrix<T, D, d1>& w_out1)
{
    return w_v2 * w_out1;
}

/// The composition matrix of two OV heads given as factors.
template <class T, std::size_t D, std::size_t d2, std::size_t d1>
constexpr matrix<T, d2, d1> composition_matrix(const ov_factors<T, D, d2>& head2, const ov_factors<T, D, d1>& head1)
{
    return composition_matrix(head2.w_v, head1.w_out);
}

/// M^T M for the composition matrix M (d1 x d1): exact where the singular values are not. Its
/// eigenvalues are the squared singular values of M, so its rank is rank(M) and its trace is the
/// sum of the squared singular values (the total strength of the composition).
template <class T, std::size_t d2, std::size_t d1>
constexpr matrix<T, d1, d1> composition_gram(const matrix<T, d2, d1>& composition)
{
    return transpose(composition) * composition;
}

/// W_net^2 W_net^1 (D x D): the OV circuit of the virtual head, from the two heads' circuits.
/// The order is the order of the layers read right to left: head 1 acts first.
template <class T, std::size_t D>
constexpr matrix<T, D, D> virtual_head(const matrix<T, D, D>& w_net2, const matrix<T, D, D>& w_net1)
{
    return w_net2 * w_net1;
}

/// The virtual head from the factors, formed through the small composition matrix:
/// W_out^2 (W_V^2 W_out^1) W_V^1, which equals W_net^2 W_net^1.
template <class T, std::size_t D, std::size_t d2, std::size_t d1>
constexpr matrix<T, D, D> virtual_head(const ov_factors<T, D, d2>& head2, const ov_factors<T, D, d1>& head1)
{
    return head2.w_out * composition_matrix(head2, head1) * head1.w_v;
}

/// A^2 A^1 (n x n, row = query): query token i attends through head 2 to token j and, through
/// head 1 at token j, to token k; the composed weight on k is sum_j A^2(i, j) A^1(j, k).
template <class T, std::size_t n>
constexpr matrix<T, n, n> composed_pattern(const matrix<T, n, n>& pattern2, const matrix<T, n, n>& pattern1)
{
    return pattern2 * pattern1;
}

} // namespace qkov
