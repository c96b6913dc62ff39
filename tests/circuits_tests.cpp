// The circuit helpers at run time: the same functions the proofs use at compile time.
#define BOOST_TEST_MODULE qkov circuits
#include <boost/test/unit_test.hpp>
#include <stdexcept>

#include "qkov/circuits/composition.hpp"
#include "qkov/circuits/dimension_copy_head.hpp"
#include "qkov/circuits/hard_attention.hpp"
#include "qkov/circuits/induction_heads.hpp"
#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/rope.hpp"
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

BOOST_AUTO_TEST_CASE(dimension_copy_head_writes_ones_where_asked_and_checks_dimensions)
{
    const auto head = dimension_copy_head<Z, 6, 2>({0, 3}, {5, 1});
    const auto ov = ov_circuit(head.w_out, head.w_v);
    BOOST_CHECK(ov == (matrix<Z, 6, 6>::from_entries({{5, 0, Z(1)}, {1, 3, Z(1)}})));
    BOOST_CHECK(rank(ov) == 2);
    BOOST_CHECK_THROW((dimension_copy_head<Z, 6, 2>({0, 6}, {1, 2})), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(lagged_patterns_have_row_query_and_shift_tokens)
{
    // Row = query: token i puts its weight on token i - 2.
    const auto pattern = lagged_token_pattern<Z, 5>(2);
    for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 5; ++j) BOOST_REQUIRE(pattern(i, j) == (i >= 2 && j == i - 2 ? Z(1) : Z(0)));
    // The head's update W_net X A^T: with W_net = I, column t of the update is token t - 2.
    const auto x = random_integer_matrix<Z, 3, 5>(9, -9, 9);
    const auto updated = apply_head(matrix<Z, 3, 3>::identity(), pattern, x);
    for (std::size_t t = 0; t < 5; ++t)
        for (std::size_t i = 0; i < 3; ++i) BOOST_REQUIRE(updated(i, t) == x(i, t) + (t >= 2 ? x(i, t - 2) : Z(0)));
    const auto none = matrix<Z, 3, 3>::zero();
    BOOST_CHECK(apply_head(none, lagged_token_pattern<Z, 5>(1), x) == x);
}

BOOST_AUTO_TEST_CASE(composition_matrix_is_what_head_2_reads_of_head_1)
{
    // Head 1 writes channel c to dimension 4 + c; head 2 reads dimensions 5 and 0. By hand:
    // head 2's channel 0 reads head 1's channel 1, and channel 1 reads nothing head 1 writes.
    const auto head1 = dimension_copy_head<Z, 8, 2>({0, 1}, {4, 5});
    const auto head2 = dimension_copy_head<Z, 8, 2>({5, 0}, {6, 7});
    const auto m = composition_matrix(head2, head1);
    BOOST_CHECK(m == (matrix<Z, 2, 2>::from_entries({{0, 1, Z(1)}})));
    BOOST_CHECK(composition_matrix(head2.w_v, head1.w_out) == m);
    BOOST_CHECK(rank(m) == 1);
    // Virtual head: dimension 1 (read by head 1's channel 1, written to 5) ends at dimension 6.
    const auto expected = matrix<Z, 8, 8>::from_entries({{6, 1, Z(1)}});
    BOOST_CHECK(virtual_head(head2, head1) == expected);
    BOOST_CHECK(virtual_head(ov_circuit(head2.w_out, head2.w_v), ov_circuit(head1.w_out, head1.w_v)) == expected);
}

BOOST_AUTO_TEST_CASE(virtual_head_from_factors_equals_the_product_of_circuits)
{
    ov_factors<Z, 7, 3> head1, head2;
    head1.w_v = random_integer_matrix<Z, 3, 7>(21, -3, 3);
    head1.w_out = random_integer_matrix<Z, 7, 3>(22, -3, 3);
    head2.w_v = random_integer_matrix<Z, 3, 7>(23, -3, 3);
    head2.w_out = random_integer_matrix<Z, 7, 3>(24, -3, 3);
    BOOST_CHECK(virtual_head(head2, head1) == head2.w_out * head2.w_v * head1.w_out * head1.w_v);
}

BOOST_AUTO_TEST_CASE(composition_gram_has_the_squared_singular_values)
{
    using Q = rational64;
    // M = [[3, 0], [0, 0], [0, 4]] has singular values 3 and 4: M^T M = diag(9, 16).
    const auto m = matrix<Q, 3, 2>::from_entries({{0, 0, Q(3)}, {2, 1, Q(4)}});
    BOOST_CHECK(composition_gram(m) == (matrix<Q, 2, 2>::from_entries({{0, 0, Q(9)}, {1, 1, Q(16)}})));
    // A 2 x 2 entry-by-entry check: M = [[1, 2], [3, 4]], M^T M = [[10, 14], [14, 20]].
    const auto general = matrix<Q, 2, 2>::from_entries({{0, 0, Q(1)}, {0, 1, Q(2)}, {1, 0, Q(3)}, {1, 1, Q(4)}});
    BOOST_CHECK(composition_gram(general) ==
                (matrix<Q, 2, 2>::from_entries({{0, 0, Q(10)}, {0, 1, Q(14)}, {1, 0, Q(14)}, {1, 1, Q(20)}})));
}

BOOST_AUTO_TEST_CASE(composed_pattern_has_row_query)
{
    using Q = rational64;
    // Head 1: token 2 splits 1/2, 1/2 over tokens 0 and 1. Head 2: token 2 attends to token 1.
    // Tokens 0 and 1 attend to themselves in both. By hand: through head 2 and then head 1,
    // token 2 reaches token 1 and head 1 at token 1 stays there: all weight on token 1.
    auto a1 = matrix<Q, 3, 3>::from_entries({{0, 0, Q(1)}, {1, 1, Q(1)}, {2, 0, Q(1, 2)}, {2, 1, Q(1, 2)}});
    auto a2 = matrix<Q, 3, 3>::from_entries({{0, 0, Q(1)}, {1, 1, Q(1)}, {2, 1, Q(1)}});
    const auto composed = composed_pattern(a2, a1);
    BOOST_CHECK(composed == (matrix<Q, 3, 3>::from_entries({{0, 0, Q(1)}, {1, 1, Q(1)}, {2, 1, Q(1)}})));
    // The other order: head 1 first sends token 2 half to 0 and half to 1, which stay put.
    BOOST_CHECK(composed_pattern(a1, a2) == (matrix<Q, 3, 3>::from_entries({{0, 0, Q(1)}, {1, 1, Q(1)}, {2, 0, Q(1, 2)}, {2, 1, Q(1, 2)}})));
    // Two lagged patterns compose to the sum of lags.
    BOOST_CHECK(composed_pattern(lagged_token_pattern<Q, 6>(1), lagged_token_pattern<Q, 6>(2)) ==
                (lagged_token_pattern<Q, 6>(3)));
}

BOOST_AUTO_TEST_CASE(semantic_head_scores_the_pairs_it_reads)
{
    using Q = rational64;
    static constexpr rope_layout L = interleaved_layout(4);
    constexpr std::size_t D = 10;
    // Pair 0 turns by the angle with cos 3/5 (triple 3-4-5), pair 1 by cos 5/13 (5-12-13).
    const rational_angles<Q, 2> angles{{{{2, 1}, {3, 2}}}};
    const auto s = matrix<Q, 4, 1>::from_entries({{0, 0, Q(1)}, {1, 0, Q(2)}, {2, 0, Q(3)}, {3, 0, Q(4)}});
    const auto energies = pair_energies<L>(s);
    BOOST_CHECK(energies(0, 0) == Q(5) && energies(1, 0) == Q(25));  // 1 + 4 and 9 + 16
    // Query token at position 3 carries s in [0, 4), key token at position 5 in [4, 8); the other
    // coordinates hold values the head must not read.
    auto x_query = matrix<Q, D, 1>::from_entries({{4, 0, Q(7)}, {8, 0, Q(-9)}, {9, 0, Q(11)}});
    auto x_key = matrix<Q, D, 1>::from_entries({{0, 0, Q(13)}, {3, 0, Q(-5)}, {9, 0, Q(6)}});
    for (std::size_t c = 0; c < 4; ++c) {
        x_query(c, 0) = s(c, 0);
        x_key(4 + c, 0) = s(c, 0);
    }
    // Offset 5 - 3 = 2: cos(2 theta) = 2 cos^2 theta - 1 = -7/25 and -119/169.
    const Q pair0 = Q(5) * Q(-7, 25), pair1 = Q(25) * Q(-119, 169);
    const auto all = semantic_head<L, D, Q>(0);
    BOOST_CHECK(rotary_score<L>(angles, all.w_q, x_query, 3, all.w_k, x_key, 5) == pair0 + pair1);
    BOOST_CHECK(semantic_profile<L>(angles, energies, 0, 2) == pair0 + pair1);
    const auto last = semantic_head<L, D, Q>(1);
    BOOST_CHECK(rotary_score<L>(angles, last.w_q, x_query, 3, last.w_k, x_key, 5) == pair1);
    BOOST_CHECK(semantic_profile<L>(angles, energies, 1, 2) == pair1);
    // In the interleaved layout the head is the pair of coordinate readers of seed 000.
    BOOST_CHECK((last.w_q == coordinate_reader<Q, 4, D>(2, 0)) && (last.w_k == coordinate_reader<Q, 4, D>(2, 4)));
    BOOST_CHECK_THROW((semantic_head<L, 7, Q>(0)), std::out_of_range);
    BOOST_CHECK_THROW((semantic_head<L, D, Q>(3)), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(semantic_head_in_the_rotate_half_layout_reads_pairs_not_a_tail)
{
    using Q = rational64;
    static constexpr rope_layout L{4, 4, rope_pairing::rotate_half};
    // Pair 1 of the rotate-half layout is coordinates 1 and 3.
    const auto head = semantic_head<L, 8, Q>(1);
    BOOST_CHECK(head.w_q == (matrix<Q, 4, 8>::from_entries({{1, 1, Q(1)}, {3, 3, Q(1)}})));
    BOOST_CHECK(head.w_k == (matrix<Q, 4, 8>::from_entries({{1, 5, Q(1)}, {3, 7, Q(1)}})));
}

BOOST_AUTO_TEST_CASE(block_copy_head_copies_consecutive_coordinates)
{
    const auto head = block_copy_head<Z, 8, 3>(1, 5);
    // By hand: 1 -> 5, 2 -> 6, 3 -> 7.
    BOOST_CHECK(ov_circuit(head.w_out, head.w_v) == (matrix<Z, 8, 8>::from_entries({{5, 1, Z(1)}, {6, 2, Z(1)}, {7, 3, Z(1)}})));
    BOOST_CHECK_THROW((block_copy_head<Z, 8, 3>(1, 6)), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(position_shift_head_rotates_the_stored_position)
{
    using Q = rational64;
    static constexpr rope_layout L = interleaved_layout(2);
    const rational_angles<Q, 1> angles{{{{2, 1}}}};  // cos 3/5, sin 4/5
    // Query reads coordinates 2, 3 (the stored pointer); key reads 0, 1 (the position).
    const auto head = position_shift_head<L, 4>(angles, 1, Q(3), 2, 0);
    // W_Q = 3 R_1 on coordinates 2, 3: R_1 = [[3/5, -4/5], [4/5, 3/5]].
    BOOST_CHECK(head.w_q == (matrix<Q, 2, 4>::from_entries({{0, 2, Q(9, 5)}, {0, 3, Q(-12, 5)}, {1, 2, Q(12, 5)}, {1, 3, Q(9, 5)}})));
    BOOST_CHECK(head.w_k == (matrix<Q, 2, 4>::from_entries({{0, 0, Q(1)}, {1, 1, Q(1)}})));
}

BOOST_AUTO_TEST_CASE(exact_rotations_reach_the_largest_power_that_fits)
{
    // cos 3/5: R_m has denominator 5^m, and 5^27 < 2^63 < 5^28. No square is taken past the last
    // bit of m, so R_16 is computed (its unused square 5^32 used to overflow) and only R_28 overflows.
    using Q = rational64;
    using RQ = rope_rotation<Q, interleaved_layout(2)>;
    const rational_angles<Q, 1> angles{{{{2, 1}}}};
    BOOST_CHECK(RQ::at(angles, 16) == RQ::at(angles, 8) * RQ::at(angles, 8));
    BOOST_CHECK(RQ::at(angles, 27).block_at(0)(0, 0).den() == checked_int64(7450580596923828125));  // 5^27
    BOOST_CHECK_THROW(RQ::at(angles, 28), std::overflow_error);
}

BOOST_AUTO_TEST_CASE(content_match_head_stacks_content_and_negated_position)
{
    using Q = rational64;
    // d = 2, D = 6: content in 1, 2 and position in 3, 4.
    const auto head = content_match_head<Q, 2, 6>(Q(5), Q(2), 1, 3);
    BOOST_CHECK(head.w_q == (matrix<Q, 4, 6>::from_entries({{0, 1, Q(5)}, {1, 2, Q(5)}, {2, 3, Q(-2)}, {3, 4, Q(-2)}})));
    BOOST_CHECK(head.w_k == (matrix<Q, 4, 6>::from_entries({{0, 1, Q(1)}, {1, 2, Q(1)}, {2, 3, Q(1)}, {3, 4, Q(1)}})));
    // Score of x against y: 5 <content> - 2 <position>, by hand for x = y = (0, 1, 1, 1, 1, 0): 5 * 2 - 2 * 2 = 6.
    const auto x = matrix<Q, 6, 1>::from_entries({{1, 0, Q(1)}, {2, 0, Q(1)}, {3, 0, Q(1)}, {4, 0, Q(1)}});
    BOOST_CHECK(attention_scores(head.w_q, head.w_k, x)(0, 0) == Q(6));
}

BOOST_AUTO_TEST_CASE(previous_content_match_head_reads_from_d0)
{
    using Q = rational64;
    const auto head = previous_content_match_head<Q, 4, 10>(Q(20), 2, 1, 5);
    BOOST_CHECK(head.w_q == (matrix<Q, 4, 10>::from_entries({{2, 3, Q(20)}, {3, 4, Q(20)}})));
    BOOST_CHECK(head.w_k == (matrix<Q, 4, 10>::from_entries({{2, 7, Q(1)}, {3, 8, Q(1)}})));
}
