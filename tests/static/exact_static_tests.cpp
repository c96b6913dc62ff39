// Compile-time tests of the exact layer: each static_assert is evaluated by the compiler, so
// building this file is the test (mp-units style). Run-time behaviour: tests/*_tests.cpp.
#include <cstdint>
#include <limits>

#include "qkov/circuits/rope.hpp"
#include "qkov/matrix/blocks.hpp"
#include "qkov/matrix/elimination.hpp"
#include "qkov/matrix/pseudo_inverse.hpp"
#include "qkov/scalar/boost_integer.hpp"
#include "qkov/scalar/dyadic_gaussian.hpp"
#include "qkov/scalar/gaussian.hpp"
#include "qkov/scalar/rational.hpp"

namespace {
using namespace qkov;

// Normalization: lowest terms, positive denominator, zero is 0/1.
static_assert(rational64(6, -4).num() == checked_int64(-3) && rational64(6, -4).den() == checked_int64(2));
static_assert(rational64(0, -7).den() == checked_int64(1));
static_assert(rational64(1, 3) + rational64(1, 6) == rational64(1, 2));
static_assert(rational64(2, 3) / rational64(4, 9) == rational64(3, 2));
static_assert(rational64(-1, 2) < rational64(1, 3));
// Comparisons whose cross products leave the integer type are still decided (by continued
// fractions): (2^63 - 3)/2 < (2^63 - 1)/3 is false, 1 + 1/(2^63 - 2) < 1 + 1/(2^63 - 3) true.
constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();
static_assert(rational64(int64_max - 2, 2) < rational64(int64_max, 2));
static_assert(rational64(int64_max, 3) < rational64(int64_max - 2, 2));
static_assert(!(rational64(int64_max - 2, 2) < rational64(int64_max, 3)));
static_assert(rational64(int64_max, int64_max - 1) < rational64(int64_max - 1, int64_max - 2));
static_assert(rational64(-int64_max, int64_max - 1) > rational64(-(int64_max - 1), int64_max - 2));
constexpr __int128 int128_max = std::numeric_limits<__int128>::max();
static_assert(rational128(int128_max, int128_max - 1) < rational128(int128_max - 1, int128_max - 2));

// Where __int128 runs out, Boost's checked 256-bit integers carry on, in constant evaluation.
constexpr checked_int256 two_to_100 = checked_int256(1) << 100;
constexpr rational256 tiny(checked_int256(1), two_to_100);
constexpr rational256 tinier = tiny * tiny;  // denominator 2^200: overflows __int128
static_assert(tinier.den() == (checked_int256(1) << 200));
static_assert(tinier < tiny && -tiny < tinier);  // by continued fractions: no native product to try
static_assert(tinier * rational256(checked_int256(1) << 200) == rational256(1));
// A matrix over them: the inverse of a matrix with entries 2^100.
constexpr auto big = matrix<rational256, 2, 2>::from_rows({{rational256(two_to_100), rational256(1)}, {rational256(0), rational256(two_to_100)}});
static_assert(big * inverse(big) == (matrix<rational256, 2, 2>::identity()));
static_assert(determinant(big) == rational256(two_to_100 * two_to_100));

// Gaussian rationals.
using G = gaussian<rational64>;
static_assert(G::i() * G::i() == G(-1));
static_assert(G(3, 4) * G(3, 4).conj() == G(25));
static_assert(G(1) / G(0, 1) == G(0, -1));

// Fraction-free elimination over integers agrees with elimination over the rationals and with
// the cofactor expansion by hand: 2(4 - 64) - 7(16 - 8) + (64 - 2) = -114.
constexpr auto m = matrix<checked_int64, 3, 3>::from_rows({{2, 7, 1}, {8, 2, 8}, {1, 8, 2}});
static_assert(determinant(m) == checked_int64(-114));
static_assert(determinant(matrix_cast<rational64>(m)) == rational64(-114));
static_assert(rank(matrix<checked_int64, 3, 4>::from_rows({{1, 2, 3, 4}, {2, 4, 6, 8}, {0, 1, 0, 1}})) == 2);
static_assert(null_space_dimension(matrix<checked_int64, 3, 4>::from_rows({{1, 2, 3, 4}, {2, 4, 6, 8}, {0, 1, 0, 1}})) == 2);

// Blocks.
constexpr auto a = matrix<checked_int64, 2, 2>::from_rows({{1, 2}, {3, 4}});
static_assert(determinant(block_diag(a, a)) == determinant(a) * determinant(a));
static_assert(kron(matrix<checked_int64, 2, 2>::identity(), a) == block_diag(a, a));
static_assert(submatrix<1, 0, 1, 2>(vstack(a, a)) == (matrix<checked_int64, 1, 2>::from_rows({{3, 4}})));

// Pseudo-inverse of a wide matrix: A A^+ = I.
constexpr auto wide = matrix<rational64, 2, 3>::from_rows({{1, 0, 1}, {0, 1, 1}});
static_assert(wide * pseudo_inverse(wide) == (matrix<rational64, 2, 2>::identity()));
static_assert(pseudo_inverse(wide) * wide * pseudo_inverse(wide) == pseudo_inverse(wide));

// dyadic_gaussian at the edge of its range keeps its sign: these sums and products are -1 and -i
// (found by review: dividing by 1 << 63 flipped -2^63 to +1).
static_assert(dyadic_gaussian(-(std::int64_t{1} << 62) - 1, 0, 63) + dyadic_gaussian(-(std::int64_t{1} << 62) + 1, 0, 63) ==
              dyadic_gaussian(-1));
static_assert(dyadic_gaussian(std::int64_t{1} << 62, -(std::int64_t{1} << 62), 0) * dyadic_gaussian(-1, -1, 63) == dyadic_gaussian(-1));
static_assert(!(dyadic_gaussian(0, INT64_MIN, 63) == dyadic_gaussian::i()));
static_assert(dyadic_gaussian(0, INT64_MIN, 63) == -dyadic_gaussian::i() * dyadic_gaussian(1) + dyadic_gaussian(0));

// Shapes can be asked about without failing, also of constexpr (const) variables.
static_assert(composable<matrix<int, 3, 4>, matrix<int, 4, 2>>);
static_assert(!composable<matrix<int, 3, 4>, matrix<int, 3, 4>>);
constexpr matrix<int, 3, 4> three_by_four{};
constexpr matrix<int, 4, 2> four_by_two{};
static_assert(composable<decltype(three_by_four), decltype(four_by_two)>);
static_assert(!composable<decltype(three_by_four), decltype(three_by_four)>);

// Widening conversions: int64 -> __int128 -> rational<__int128>.
constexpr auto narrow_matrix = matrix<checked_int64, 1, 2>::from_rows({{checked_int64(-3), checked_int64(1) }});
static_assert(matrix_cast<rational128>(matrix_cast<checked_int128>(narrow_matrix))(0, 0) == rational128(-3));

// Over Gaussian rationals the pseudo-inverse conjugates: [1; 2i]^+ = [1, -2i] / 5.
using GQ = gaussian<rational64>;
constexpr auto column = matrix<GQ, 2, 1>::from_rows({{GQ(1)}, {GQ(0, 2)}});
static_assert(pseudo_inverse(column) == (matrix<GQ, 1, 2>::from_rows({{GQ(rational64(1, 5)), GQ(rational64(0), rational64(-2, 5))}})));
static_assert(pseudo_inverse(matrix<GQ, 2, 1>::from_rows({{GQ(1)}, {GQ(0, 1)}})) * matrix<GQ, 2, 1>::from_rows({{GQ(1)}, {GQ(0, 1)}}) ==
              (matrix<GQ, 1, 1>::identity()));

// Exact rotations as far as their entries fit: with cos 3/5, R_m has denominator 5^m, and
// 5^27 < 2^63 < 5^28. Square and multiply stops squaring after the last bit, so R_16 (whose
// next square, 5^32, would overflow) and R_27 are computed.
using RQ = rope_rotation<rational64, interleaved_layout(2)>;
constexpr rational_angles<rational64, 1> three_fifths{{{{2, 1}}}};
static_assert(RQ::at(three_fifths, 16) == RQ::at(three_fifths, 8) * RQ::at(three_fifths, 8));
static_assert(RQ::at(three_fifths, 27) == RQ::at(three_fifths, 11) * RQ::at(three_fifths, 16));
static_assert(RQ::at(three_fifths, -16) == RQ::at(three_fifths, -8) * RQ::at(three_fifths, -8));

} // namespace
