// The circuit helpers at run time: the same functions the proofs use at compile time.
#define BOOST_TEST_MODULE qkov circuits
#include <boost/test/unit_test.hpp>
#include <stdexcept>

#include "qkov/circuits/copy_head.hpp"
#include "qkov/circuits/hard_attention.hpp"
#include "qkov/circuits/qk_ov.hpp"
#include "qkov/matrix/elimination.hpp"
#include "qkov/matrix/random_integer_matrix.hpp"
#include "qkov/scalar/rational.hpp"

using namespace qkov;
using Z = checked_int64;

BOOST_AUTO_TEST_CASE(scores_from_factors_equal_scores_from_the_circuit)
{
    const auto w_q = random_integer_matrix<Z, 3, 8>(1, -3, 3);
    const auto w_k = random_integer_matrix<Z, 3, 8>(2, -3, 3);
    const auto tokens = random_integer_matrix<Z, 8, 5>(3, -4, 4);
    const auto scores = attention_scores(w_q, w_k, tokens);
    BOOST_CHECK(scores == attention_scores(qk_circuit(w_q, w_k), tokens));
    // S(i, j) is q_i . k_j.
    Z s02(0);
    for (std::size_t c = 0; c < 3; ++c) {
        Z q(0), k(0);
        for (std::size_t r = 0; r < 8; ++r) {
            q += w_q(c, r) * tokens(r, 0);
            k += w_k(c, r) * tokens(r, 2);
        }
        s02 += q * k;
    }
    BOOST_CHECK(scores(0, 2) == s02);
}

BOOST_AUTO_TEST_CASE(copy_head_writes_ones_where_asked_and_checks_dimensions)
{
    const auto head = copy_head<Z, 6, 2>({0, 3}, {5, 1});
    const auto ov = ov_circuit(head.w_out, head.w_v);
    BOOST_CHECK(ov == (matrix<Z, 6, 6>::from_entries({{5, 0, Z(1)}, {1, 3, Z(1)}})));
    BOOST_CHECK(rank(ov) == 2);
    BOOST_CHECK_THROW((copy_head<Z, 6, 2>({0, 6}, {1, 2})), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(lagged_patterns_shift_tokens)
{
    const auto x = random_integer_matrix<Z, 3, 5>(9, -9, 9);
    const auto shifted = x * lagged_token_pattern<Z, 5>(2);
    for (std::size_t t = 0; t < 5; ++t)
        for (std::size_t i = 0; i < 3; ++i) BOOST_REQUIRE(shifted(i, t) == (t >= 2 ? x(i, t - 2) : Z(0)));
    const auto none = matrix<Z, 3, 3>::zero();
    BOOST_CHECK(apply_head(none, lagged_token_pattern<Z, 5>(1), x) == x);
}
