// Claim T5: W_out^1 and W_out^2 as seed 002 prints them (15 rows, r_5 missing) do not compose.
// Kind: X (shapes checked at compile time).
//
// The printed rows are labelled r_0 .. r_4, r_6 .. r_15. The false twin
// proofs/false/T5_printed_matrices_compose.cpp writes the product and must fail with the shape diagnostic.
#include "qkov/matrix/blocks.hpp"
#include "qkov/matrix/matrix.hpp"
#include "qkov/scalar/checked.hpp"

namespace {
using namespace qkov;
using Z = checked_int64;

// The matrices exactly as printed: row k of the print carries the label r_k for k <= 4 and
// r_{k+1} for k >= 5, so the ones of W_out^1 stand in printed rows 7-10 (labels r_8 .. r_11).
constexpr auto W_V1 = matrix<Z, 4, 16>::from_entries({{0, 0, 1}, {1, 1, 1}, {2, 2, 1}, {3, 3, 1}});
constexpr auto W_out1_printed = matrix<Z, 15, 4>::from_entries({{7, 0, 1}, {8, 1, 1}, {9, 2, 1}, {10, 3, 1}});
constexpr auto W_V2 = matrix<Z, 4, 16>::from_entries({{0, 4, 1}, {1, 5, 1}, {2, 6, 1}, {3, 8, 1}});
constexpr auto W_out2_printed = matrix<Z, 15, 4>::from_entries({{11, 0, 1}, {12, 1, 1}, {13, 2, 1}, {14, 3, 1}});

// Each head's own circuit still has a shape (15 x 16) ...
constexpr auto W_net1_printed = W_out1_printed * W_V1;
constexpr auto W_net2_printed = W_out2_printed * W_V2;
static_assert(decltype(W_net1_printed)::rows == 15 && decltype(W_net1_printed)::cols == 16);

// ... but the two-token copy W_net^2 W_net^1 is undefined, and so is head 2 reading head 1.
static_assert(!composable<decltype(W_net2_printed), decltype(W_net1_printed)>,
              "T5: the printed W_net^2 (15 x 16) and W_net^1 (15 x 16) do not compose");
static_assert(!composable<decltype(W_V2), decltype(W_out1_printed)>,
              "T5: the printed W_V^2 (4 x 16) cannot read the printed W_out^1 (15 x 4)");

// The correction: inserting the missing row r_5 (zero) gives 16 x 4 matrices that compose, with
// their ones on the rows their labels name (as proofs/T4_virtual_head.cpp uses them).
constexpr auto zero_row = matrix<Z, 1, 4>::zero();
constexpr auto W_out1 = vstack(vstack(submatrix<0, 0, 5, 4>(W_out1_printed), zero_row), submatrix<5, 0, 10, 4>(W_out1_printed));
constexpr auto W_out2 = vstack(vstack(submatrix<0, 0, 5, 4>(W_out2_printed), zero_row), submatrix<5, 0, 10, 4>(W_out2_printed));
static_assert(W_out1 == matrix<Z, 16, 4>::from_entries({{8, 0, 1}, {9, 1, 1}, {10, 2, 1}, {11, 3, 1}}),
              "T5: with r_5 restored, W_out^1 writes dimensions 8-11");
static_assert(W_out2 == matrix<Z, 16, 4>::from_entries({{12, 0, 1}, {13, 1, 1}, {14, 2, 1}, {15, 3, 1}}),
              "T5: with r_5 restored, W_out^2 writes dimensions 12-15");
static_assert(composable<decltype(W_out2 * W_V2), decltype(W_out1 * W_V1)>);

} // namespace
