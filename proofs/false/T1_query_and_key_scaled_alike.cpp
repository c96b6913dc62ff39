// False twin of T1: transforming W_Q and W_K by the same G (instead of G and G^-T) keeps the
// scores. It does not: W_Q^T G^T G W_K differs from W_Q^T W_K unless G is orthogonal.
// expect-error-gcc: static assertion failed: T1 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': T1 false twin
#include "qkov/circuits/qk_ov.hpp"
#include "qkov/matrix/random_integer_matrix.hpp"
#include "qkov/scalar/rational.hpp"

namespace {
using namespace qkov;
using Q = rational128;
constexpr std::size_t D = 16, d = 4, n = 6;  // as in the proof
constexpr bool same_scores_with_same_g = [] {
    const auto w_q = random_integer_matrix<Q, d, D>(1, -3, 3);
    const auto w_k = random_integer_matrix<Q, d, D>(2, -3, 3);
    const auto tokens = random_integer_matrix<Q, D, n>(5, -5, 5);
    const auto g = random_integer_matrix<Q, d, d>(6, -1, 1) + matrix<Q, d, d>::identity() * Q(5);
    return attention_scores(g * w_q, g * w_k, tokens) == attention_scores(w_q, w_k, tokens);
}();
static_assert(same_scores_with_same_g, "T1 false twin: W_Q -> G W_Q, W_K -> G W_K keeps the scores");
}
