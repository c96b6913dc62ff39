// Exact matrices at run time, checked against independent computations written here (cofactor
// expansion for determinants, the Moore-Penrose conditions for pseudo-inverses, ...).
#define BOOST_TEST_MODULE qkov matrix
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "qkov/matrix/blocks.hpp"
#include "qkov/matrix/elimination.hpp"
#include "qkov/matrix/matrix.hpp"
#include "qkov/matrix/norms.hpp"
#include "qkov/matrix/pseudo_inverse.hpp"
#include "qkov/matrix/random_integer_matrix.hpp"
#include "qkov/scalar/gaussian.hpp"
#include "qkov/scalar/rational.hpp"

using namespace qkov;
using Z = checked_int128;
using Q = rational128;

namespace {
// Laplace expansion along the first row: exponential, but independent of elimination.
template <std::size_t N>
Z cofactor_determinant(const matrix<Z, N, N>& a)
{
    if constexpr (N == 1) {
        return a(0, 0);
    } else {
        Z sum(0);
        for (std::size_t col = 0; col < N; ++col) {
            matrix<Z, N - 1, N - 1> minor;
            for (std::size_t i = 1; i < N; ++i)
                for (std::size_t j = 0, k = 0; j < N; ++j)
                    if (j != col) minor(i - 1, k++) = a(i, j);
            const Z term = a(0, col) * cofactor_determinant(minor);
            sum = (col % 2 == 0) ? sum + term : sum - term;
        }
        return sum;
    }
}
} // namespace

BOOST_AUTO_TEST_CASE(product_matches_the_definition)
{
    const auto a = random_integer_matrix<Z, 3, 5>(1, -9, 9);
    const auto b = random_integer_matrix<Z, 5, 4>(2, -9, 9);
    const auto c = a * b;
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 4; ++j) {
            Z s(0);
            for (std::size_t k = 0; k < 5; ++k) s += a(i, k) * b(k, j);
            BOOST_REQUIRE(c(i, j) == s);
        }
    BOOST_CHECK(transpose(c) == transpose(b) * transpose(a));
    BOOST_CHECK(a * (matrix<Z, 5, 5>::identity()) == a);
    BOOST_CHECK(a - a == (matrix<Z, 3, 5>::zero()));
    BOOST_CHECK(Z(2) * a == a + a);
}

BOOST_AUTO_TEST_CASE(blocks_round_trip)
{
    const auto a = random_integer_matrix<Z, 2, 3>(3, -5, 5);
    const auto b = random_integer_matrix<Z, 2, 2>(4, -5, 5);
    const auto h = hstack(a, b);
    BOOST_CHECK((submatrix<0, 0, 2, 3>(h) == a));
    BOOST_CHECK((submatrix<0, 3, 2, 2>(h) == b));
    const auto v = vstack(transpose(a), b);
    BOOST_CHECK((submatrix<3, 0, 2, 2>(v) == b));
    const auto bd = block_diag(b, b);
    BOOST_CHECK((submatrix<0, 2, 2, 2>(bd) == (matrix<Z, 2, 2>::zero())));
    BOOST_CHECK(determinant(bd) == determinant(b) * determinant(b));
}

BOOST_AUTO_TEST_CASE(kron_mixed_product_property)
{
    const auto a = random_integer_matrix<Z, 2, 3>(5, -4, 4);
    const auto b = random_integer_matrix<Z, 3, 2>(6, -4, 4);
    const auto c = random_integer_matrix<Z, 3, 2>(7, -4, 4);
    const auto d = random_integer_matrix<Z, 2, 2>(8, -4, 4);
    BOOST_CHECK(kron(a, b) * kron(c, d) == kron(a * c, b * d));
    const Z entry = kron(a, b)(1 * 3 + 2, 2 * 2 + 1);
    BOOST_CHECK(entry == a(1, 2) * b(2, 1));
}

BOOST_AUTO_TEST_CASE(determinant_matches_cofactor_expansion)
{
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
        const auto a = random_integer_matrix<Z, 6, 6>(seed, -20, 20);
        const Z expected = cofactor_determinant(a);
        BOOST_REQUIRE(determinant(a) == expected);
        BOOST_REQUIRE(determinant(matrix_cast<Q>(a)) == Q(expected));
        BOOST_REQUIRE((rank(a) == 6) == (expected != Z(0)));
    }
}

BOOST_AUTO_TEST_CASE(rank_of_products_and_null_space)
{
    const auto left = random_integer_matrix<Z, 9, 3>(21, -3, 3);
    const auto right = random_integer_matrix<Z, 3, 7>(22, -3, 3);
    BOOST_CHECK(rank(left) == 3);
    BOOST_CHECK(rank(left * right) == 3);
    BOOST_CHECK(null_space_dimension(left * right) == 4);
    BOOST_CHECK(rank(matrix<Z, 4, 5>::zero()) == 0);
    // A pivot-free column in the middle must not break the exact divisions.
    const auto m = matrix<Z, 3, 4>::from_rows({{Z(2), Z(4), Z(1), Z(3)}, {Z(4), Z(8), Z(5), Z(1)}, {Z(6), Z(12), Z(7), Z(9)}});
    BOOST_CHECK(rank(m) == 3);
    BOOST_CHECK(rank(matrix_cast<Q>(m)) == 3);
}

BOOST_AUTO_TEST_CASE(inverse_and_singular_input)
{
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
        const auto a = matrix_cast<Q>(random_integer_matrix<Z, 5, 5>(100 + seed, -6, 6));
        if (determinant(a) == Q(0)) {
            BOOST_CHECK_THROW(inverse(a), std::domain_error);
            continue;
        }
        const auto inv = inverse(a);
        BOOST_REQUIRE(a * inv == (matrix<Q, 5, 5>::identity()));
        BOOST_REQUIRE(inv * a == (matrix<Q, 5, 5>::identity()));
        BOOST_REQUIRE(determinant(inv) * determinant(a) == Q(1));
    }
    const auto singular = matrix<Q, 2, 2>::from_rows({{Q(1), Q(2)}, {Q(2), Q(4)}});
    BOOST_CHECK_EXCEPTION(inverse(singular), std::domain_error,
                          [](const std::domain_error& e) { return std::string(e.what()).find("singular") != std::string::npos; });
}

BOOST_AUTO_TEST_CASE(gaussian_rational_matrices)
{
    using G = gaussian<rational64>;
    const auto a = matrix<G, 2, 2>::from_rows({{G(1, 1), G(2)}, {G(0, 1), G(3, -1)}});
    const auto inv = inverse(a);
    BOOST_CHECK(a * inv == (matrix<G, 2, 2>::identity()));
    BOOST_CHECK(determinant(a) == G(1, 1) * G(3, -1) - G(2) * G(0, 1));
    BOOST_CHECK(frobenius_norm_squared(a) == rational64(1 + 1 + 4 + 1 + 9 + 1));
}

template <std::size_t R, std::size_t C>
void check_moore_penrose(const matrix<Q, R, C>& a)
{
    const auto p = pseudo_inverse(a);
    BOOST_CHECK(a * p * a == a);
    BOOST_CHECK(p * a * p == p);
    BOOST_CHECK(transpose(a * p) == a * p);
    BOOST_CHECK(transpose(p * a) == p * a);
}

BOOST_AUTO_TEST_CASE(pseudo_inverse_satisfies_the_moore_penrose_conditions)
{
    check_moore_penrose(matrix_cast<Q>(random_integer_matrix<Z, 7, 3>(31, -4, 4)));  // tall
    check_moore_penrose(matrix_cast<Q>(random_integer_matrix<Z, 3, 7>(32, -4, 4)));  // wide
    const auto tall = matrix_cast<Q>(random_integer_matrix<Z, 7, 3>(33, -4, 4));
    BOOST_CHECK(pseudo_inverse(tall) * tall == (matrix<Q, 3, 3>::identity()));
    const auto deficient = matrix<Q, 3, 2>::from_rows({{Q(1), Q(2)}, {Q(2), Q(4)}, {Q(3), Q(6)}});
    BOOST_CHECK_EXCEPTION(pseudo_inverse(deficient), std::domain_error,
                          [](const std::domain_error& e) { return std::string(e.what()).find("full") != std::string::npos; });
}

BOOST_AUTO_TEST_CASE(gaussian_pseudo_inverse_satisfies_the_moore_penrose_conditions)
{
    using G = gaussian<rational64>;
    const auto a = matrix<G, 3, 2>::from_rows({{G(1, 1), G(0, 2)}, {G(2), G(1, -1)}, {G(0, 1), G(3)}});
    const auto p = pseudo_inverse(a);
    BOOST_CHECK(a * p * a == a);
    BOOST_CHECK(p * a * p == p);
    BOOST_CHECK(adjoint(a * p) == a * p);  // Hermitian, not merely symmetric
    BOOST_CHECK(adjoint(p * a) == p * a);
    BOOST_CHECK(p * a == (matrix<G, 2, 2>::identity()));
}

BOOST_AUTO_TEST_CASE(random_matrices_check_their_range)
{
    splitmix64 gen(5);
    for (int k = 0; k < 1000; ++k) {
        const auto v = gen.uniform(-3, 3);
        BOOST_REQUIRE(v >= -3 && v <= 3);
    }
    BOOST_CHECK_NO_THROW(gen.uniform(INT64_MIN, INT64_MAX));  // the full range: no signed overflow
    BOOST_CHECK(gen.uniform(7, 7) == 7);
    BOOST_CHECK_THROW(gen.uniform(3, -3), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(floating_point_products_keep_ieee_semantics)
{
    const auto a = matrix<double, 1, 2>::from_rows({{0.0, 1.0}});
    const auto b = matrix<double, 2, 1>::from_rows({{std::numeric_limits<double>::infinity()}, {1.0}});
    BOOST_CHECK(std::isnan((a * b)(0, 0)));  // 0 * inf is NaN, not skipped as a zero
}

BOOST_AUTO_TEST_CASE(integer_elimination_overflow_is_reported)
{
    // Entries near 2^62: the first Bareiss cross product needs ~2^125 and the next ones more.
    auto big = random_integer_matrix<Z, 4, 4>(41, -1000, 1000);
    for (std::size_t i = 0; i < 4; ++i) big(i, i) = Z(std::int64_t{1} << 62);
    BOOST_CHECK_THROW(determinant(big), std::overflow_error);
    const matrix<Z, 2, 2> two_by_two;
    BOOST_CHECK_THROW((void)two_by_two.at(2, 0), std::out_of_range);
    const auto outside = [] { return matrix<Z, 2, 2>::from_entries({{2, 0, Z(1)}}); };
    BOOST_CHECK_THROW(outside(), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(frobenius_norm_squared_is_the_sum_of_squares)
{
    const auto a = matrix<Z, 2, 2>::from_rows({{Z(1), Z(-2)}, {Z(3), Z(4)}});
    BOOST_CHECK(frobenius_norm_squared(a) == Z(30));
    BOOST_CHECK(frobenius_norm_squared(a) == trace(transpose(a) * a));
}
