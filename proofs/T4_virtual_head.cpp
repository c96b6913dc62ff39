// Claim T4: two previous-token heads compose into a two-back virtual head (seed 002, Exercise 1).
// Kind: X (exact instance over checked integers and rationals at compile time).
//
// Seed 002 uses a 16-dimensional residual stream and 4-dimensional heads, 0-based dimensions.
// Head 1 copies dimensions 0-3 to 8-11; head 2 copies 4, 5, 6 to 12, 13, 14 and dimension 8
// (written by head 1) to 15. The seed prints W_out^1 and W_out^2 with 15 rows (r_5 is missing);
// here they have the 16 rows their labels r_0 .. r_15 call for (the printed shapes: T5).
#include "qkov/circuits/composition.hpp"
#include "qkov/circuits/dimension_copy_head.hpp"
#include "qkov/circuits/hard_attention.hpp"
#include "qkov/circuits/qk_ov.hpp"
#include "qkov/matrix/elimination.hpp"
#include "qkov/matrix/matrix.hpp"
#include "qkov/scalar/rational.hpp"

namespace {
using namespace qkov;
using Z = checked_int64;
constexpr std::size_t D = 16;
constexpr std::size_t d = 4;
using residual_map = matrix<Z, D, D>;

// (a), (b): the seed's four matrices, entry by entry as printed (with the missing row r_5 restored).
constexpr auto W_V1 = matrix<Z, d, D>::from_entries({{0, 0, 1}, {1, 1, 1}, {2, 2, 1}, {3, 3, 1}});
constexpr auto W_out1 = matrix<Z, D, d>::from_entries({{8, 0, 1}, {9, 1, 1}, {10, 2, 1}, {11, 3, 1}});
constexpr auto W_V2 = matrix<Z, d, D>::from_entries({{0, 4, 1}, {1, 5, 1}, {2, 6, 1}, {3, 8, 1}});
constexpr auto W_out2 = matrix<Z, D, d>::from_entries({{12, 0, 1}, {13, 1, 1}, {14, 2, 1}, {15, 3, 1}});

// The generic construction produces exactly the seed's matrices.
constexpr auto head1 = dimension_copy_head<Z, D, d>({0, 1, 2, 3}, {8, 9, 10, 11});
constexpr auto head2 = dimension_copy_head<Z, D, d>({4, 5, 6, 8}, {12, 13, 14, 15});
static_assert(head1.w_v == W_V1 && head1.w_out == W_out1, "T4: dimension_copy_head reproduces W_V^1, W_out^1 of the seed");
static_assert(head2.w_v == W_V2 && head2.w_out == W_out2, "T4: dimension_copy_head reproduces W_V^2, W_out^2 of the seed");

// (c): W_net^i = W_out^i W_V^i, as the seed prints them.
constexpr residual_map W_net1 = ov_circuit(W_out1, W_V1);
constexpr residual_map W_net2 = ov_circuit(W_out2, W_V2);
static_assert(W_net1 == residual_map::from_entries({{8, 0, 1}, {9, 1, 1}, {10, 2, 1}, {11, 3, 1}}),
              "T4(c): W_net^1 copies dimensions 0-3 to 8-11");
static_assert(W_net2 == residual_map::from_entries({{12, 4, 1}, {13, 5, 1}, {14, 6, 1}, {15, 8, 1}}),
              "T4(c): W_net^2 copies 4, 5, 6 to 12, 13, 14 and 8 to 15");

// (d) Two-token copy: W_net^2 W_net^1 is the single entry (15, 0).
constexpr residual_map two_token_copy = virtual_head(W_net2, W_net1);
static_assert(virtual_head(head2, head1) == two_token_copy,
              "T4(d): W_out^2 (W_V^2 W_out^1) W_V^1 = W_net^2 W_net^1");
static_assert(two_token_copy == residual_map::from_entries({{15, 0, 1}}),
              "T4(d): the two-token copy W_net^2 W_net^1 is the single entry (15, 0)");
static_assert(count_nonzero(two_token_copy) == 1);
// Order matters: head 1 never reads what head 2 writes.
static_assert(virtual_head(W_net1, W_net2) == residual_map::zero(), "T4(d): W_net^1 W_net^2 = 0");

// (d) One-token copy: W_net^2 Id + Id W_net^1, as printed.
static_assert(W_net2 * residual_map::identity() + residual_map::identity() * W_net1 ==
                  residual_map::from_entries({{8, 0, 1}, {9, 1, 1}, {10, 2, 1}, {11, 3, 1},
                                              {12, 4, 1}, {13, 5, 1}, {14, 6, 1}, {15, 8, 1}}),
              "T4(d): the one-token copy has the eight entries the seed prints");

// Capacity: the two heads have 4 + 4 channels; the channels head 2 spends reading head 1's output
// is rank(W_V^2 W_out^1) (T3's composition matrix). That is 1 of 8: a 1/8 : 7/8 split.
constexpr std::size_t total_channels = rank(W_net1) + rank(W_net2);
constexpr std::size_t composed_channels = rank(composition_matrix(W_V2, W_out1));
static_assert(total_channels == 8 && composed_channels == 1);
static_assert(rational64(composed_channels, total_channels) == rational64(1, 8),
              "T4: 1/8 of the capacity composes (two-back copy)");
static_assert(rational64(total_channels - composed_channels, total_channels) == rational64(7, 8),
              "T4: 7/8 of the capacity copies the previous token");
static_assert(rank(two_token_copy) == composed_channels);

// The virtual head on a sequence: two layers whose heads attend to the previous token (hard
// attention, alpha -> infinity). Residual stream X (16 x n, one column per token) with
// distinct entries, so that any mixing of entries would show.
constexpr std::size_t n = 6;
constexpr auto X = [] {
    matrix<Z, D, n> x;
    for (std::size_t i = 0; i < D; ++i)
        for (std::size_t t = 0; t < n; ++t) x(i, t) = Z(std::int64_t(100 * t + i + 1));
    return x;
}();
constexpr auto previous = lagged_token_pattern<Z, n>(1);
constexpr auto two_back = lagged_token_pattern<Z, n>(2);
constexpr auto after_layer1 = apply_head(W_net1, previous, X);
constexpr auto after_layer2 = apply_head(W_net2, previous, after_layer1);

static_assert(composed_pattern(previous, previous) == two_back,
              "T4: two previous-token patterns compose to a two-back pattern");
// The path expansion: direct path, two one-token paths and the virtual (two-back) head.
static_assert(after_layer2 == X + W_net1 * X * transpose(previous) + W_net2 * X * transpose(previous) +
                                  two_token_copy * X * transpose(two_back),
              "T4: two layers = identity + both heads + the virtual head W_net^2 W_net^1 on the two-back pattern");
// Dimension 15 holds, at token t, dimension 8 of token t-1 plus dimension 0 of token t-2: the
// dual role of entry (15, 8) the seed points out.
constexpr bool dimension15_is_dual = [] {
    for (std::size_t t = 2; t < n; ++t)
        if (!(after_layer2(15, t) == X(15, t) + X(8, t - 1) + X(0, t - 2))) return false;
    return true;
}();
static_assert(dimension15_is_dual, "T4: dimension 15 = own + dim 8 one back + dim 0 two back");

} // namespace
