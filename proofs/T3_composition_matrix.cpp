// Claim T3: W_V^2 W_out^1 = 0 means head 2 does not read head 1; its rank (the number of nonzero singular values) is the dimension of the subspace passed, at most min(d2, d1); its singular values are the strength.
// Kind: X (exact ranks and Gram matrices at compile time, over checked integers and rationals).
//
// Singular values are irrational in general, so the statements about them go through the Gram
// matrix G = M^T M of the composition matrix M: its eigenvalues are the squared singular values,
// rank(G) = rank(M) counts the nonzero ones, and trace(G) = ||M||_F^2 is the sum of their squares.
#include <cstdint>

#include "qkov/circuits/composition.hpp"
#include "qkov/circuits/dimension_copy_head.hpp"
#include "qkov/circuits/qk_ov.hpp"
#include "qkov/matrix/elimination.hpp"
#include "qkov/matrix/matrix.hpp"
#include "qkov/matrix/norms.hpp"
#include "qkov/matrix/random_integer_matrix.hpp"
#include "qkov/scalar/rational.hpp"

namespace {
using namespace qkov;
using Z = checked_int128;
using Q = rational64;
constexpr std::size_t D = 16;

// Seed 002's two heads (T4): head 2 reads dimension 8, which head 1 writes (from dimension 3).
constexpr auto head1 = dimension_copy_head<Z, D, 4>({0, 1, 2, 3}, {8, 9, 10, 11});
constexpr auto head2 = dimension_copy_head<Z, D, 4>({4, 5, 6, 8}, {12, 13, 14, 15});
constexpr auto seed_composition = composition_matrix(head2, head1);
// Head 2's channel 3 reads head 1's channel 0 (dimension 8): one subspace of dimension 1, strength 1.
static_assert(seed_composition == matrix<Z, 4, 4>::from_entries({{3, 0, 1}}),
              "T3: in seed 002 head 2's channel 3 reads head 1's channel 0");
static_assert(rank(seed_composition) == 1, "T3: seed 002's heads pass a one-dimensional subspace");
static_assert(rank(composition_gram(seed_composition)) == 1 && trace(composition_gram(seed_composition)) == Z(1),
              "T3: one nonzero singular value, equal to 1");
// The virtual head is zero exactly when the composition matrix is: W_out^2 M W_V^1 with W_out^2
// injective and W_V^1 onto (dimension copy heads are).
static_assert(!(virtual_head(head2, head1) == matrix<Z, D, D>::zero()));

// A head 2 that reads only dimensions head 1 does not write does not read head 1 at all.
constexpr auto reader_elsewhere = dimension_copy_head<Z, D, 4>({4, 5, 6, 7}, {12, 13, 14, 15});
static_assert(composition_matrix(reader_elsewhere, head1) == matrix<Z, 4, 4>::zero(),
              "T3: W_V^2 W_out^1 = 0 when head 2 reads none of head 1's output");
static_assert(virtual_head(reader_elsewhere, head1) == matrix<Z, D, D>::zero(),
              "T3: and then the virtual head vanishes");

// Each dimension 0 .. 4 of passed subspace: head 2 reads k of the dimensions head 1 writes.
template <std::size_t k>
constexpr std::size_t passed_dimension()
{
    std::array<std::size_t, 4> from{4, 5, 6, 7};
    for (std::size_t c = 0; c < k; ++c) from[c] = 8 + c;  // head 1 writes 8 .. 11
    return rank(composition_matrix(dimension_copy_head<Z, D, 4>(from, {12, 13, 14, 15}), head1));
}
static_assert(passed_dimension<0>() == 0 && passed_dimension<1>() == 1 && passed_dimension<2>() == 2 &&
                  passed_dimension<3>() == 3 && passed_dimension<4>() == 4,
              "T3: the rank counts the dimensions head 2 reads of head 1's output");

// The bound rank <= min(d2, d1), attained on generic factors (entries in [-2, 2]), with heads of
// different sizes in both orders.
template <std::size_t d2, std::size_t d1>
constexpr std::size_t generic_composition_rank(std::uint64_t seed)
{
    const auto w_v2 = random_integer_matrix<Z, d2, D>(seed, -2, 2);
    const auto w_out1 = random_integer_matrix<Z, D, d1>(seed + 1, -2, 2);
    return rank(composition_matrix(w_v2, w_out1));
}
static_assert(generic_composition_rank<3, 5>(11) == 3, "T3: rank min(d2, d1) = 3 for d2 = 3, d1 = 5");
static_assert(generic_composition_rank<5, 3>(12) == 3, "T3: rank min(d2, d1) = 3 for d2 = 5, d1 = 3");
static_assert(generic_composition_rank<4, 4>(13) == 4, "T3: rank 4 for two heads of 4");
// Even generic factors cannot pass more than the narrower head: rank(G) = rank(M) <= min.
constexpr auto generic_gram = composition_gram(composition_matrix(random_integer_matrix<Z, 3, D>(11, -2, 2),
                                                                  random_integer_matrix<Z, D, 5>(12, -2, 2)));
static_assert(rank(generic_gram) == 3 && determinant(generic_gram) == Z(0),
              "T3: the 5 x 5 Gram matrix of a 3 x 5 composition is singular, rank 3");

// The strength: head 2 reads head 1's channels 0 and 1 through a rotation (3/5, -4/5; 4/5, 3/5)
// scaled by 2, and channel 2 scaled by 1/2. M is not diagonal, but M^T M = diag(4, 4, 1/4, 0):
// singular values 2, 2, 1/2 (rank 3), total strength trace = 8 + 1/4.
constexpr auto w_out1_q = matrix<Q, D, 4>::from_entries({{8, 0, 1}, {9, 1, 1}, {10, 2, 1}, {11, 3, 1}});
constexpr auto w_v2_q = matrix<Q, 4, D>::from_entries({{0, 8, Q(6, 5)}, {0, 9, Q(-8, 5)},
                                                         {1, 8, Q(8, 5)}, {1, 9, Q(6, 5)},
                                                         {2, 10, Q(1, 2)}, {3, 4, Q(1)}});
constexpr auto rotated = composition_matrix(w_v2_q, w_out1_q);
static_assert(!(rotated(0, 1) == Q(0)), "T3: the composition matrix is not diagonal");
static_assert(composition_gram(rotated) == matrix<Q, 4, 4>::from_entries({{0, 0, Q(4)}, {1, 1, Q(4)}, {2, 2, Q(1, 4)}}),
              "T3: M^T M = diag(4, 4, 1/4, 0): singular values 2, 2, 1/2 and 0");
static_assert(rank(rotated) == 3 && trace(composition_gram(rotated)) == Q(33, 4) &&
                  frobenius_norm_squared(rotated) == Q(33, 4),
              "T3: three directions pass, total strength 2^2 + 2^2 + (1/2)^2 = 33/4");

} // namespace
