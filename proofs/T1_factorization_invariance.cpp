// Claim T1: a head depends on W_Q, W_K only through W_Q^T W_K, and on W_V, W_out only through W_out W_V.
// Seed 002: O = W_out W_V E softmax(E^T W_Q^T W_K E), column convention.
// Kind: X (exact rational instances at compile time).
//
// Two different factorizations of the same circuits: W_Q' = G W_Q, W_K' = G^-T W_K and
// W_V' = H W_V, W_out' = W_out H^-1 for invertible d x d matrices G, H. The factors differ, the
// circuits agree, and so do the exact pre-softmax scores and the values: the softmax pattern
// and the head output, functions of these two alone, are therefore identical too.
#include <cstdint>

#include "qkov/circuits/qk_ov.hpp"
#include "qkov/matrix/elimination.hpp"
#include "qkov/matrix/random_integer_matrix.hpp"
#include "qkov/scalar/rational.hpp"

namespace {
using namespace qkov;
using Q = rational128;
constexpr std::size_t D = 16;
constexpr std::size_t d = 4;
constexpr std::size_t n = 6;  // tokens

struct refactorization_check {
    bool factors_differ;
    bool qk_circuit_equal;
    bool scores_equal;         // from the two pairs of factors
    bool scores_from_circuit;  // E^T (W_Q^T W_K) E gives the same scores
    bool ov_circuit_equal;
    bool values_equal;
};

constexpr refactorization_check refactor_head(std::uint64_t seed)
{
    const auto w_q = random_integer_matrix<Q, d, D>(seed, -3, 3);
    const auto w_k = random_integer_matrix<Q, d, D>(seed + 1, -3, 3);
    const auto w_v = random_integer_matrix<Q, d, D>(seed + 2, -3, 3);
    const auto w_out = random_integer_matrix<Q, D, d>(seed + 3, -3, 3);
    const auto tokens = random_integer_matrix<Q, D, n>(seed + 4, -5, 5);
    // G and H: strictly diagonally dominant (diagonal >= 4 > 3 >= off-diagonal row sum), hence
    // invertible; inverted exactly.
    const auto g = random_integer_matrix<Q, d, d>(seed + 5, -1, 1) + matrix<Q, d, d>::identity() * Q(5);
    const auto h = random_integer_matrix<Q, d, d>(seed + 6, -1, 1) + matrix<Q, d, d>::identity() * Q(5);

    const auto w_q2 = g * w_q;
    const auto w_k2 = transpose(inverse(g)) * w_k;
    const auto w_v2 = h * w_v;
    const auto w_out2 = w_out * inverse(h);

    const auto qk = qk_circuit(w_q, w_k);
    return {
        .factors_differ = !(w_q2 == w_q) && !(w_k2 == w_k) && !(w_v2 == w_v) && !(w_out2 == w_out),
        .qk_circuit_equal = qk_circuit(w_q2, w_k2) == qk,
        .scores_equal = attention_scores(w_q2, w_k2, tokens) == attention_scores(w_q, w_k, tokens),
        .scores_from_circuit = attention_scores(qk, tokens) == attention_scores(w_q, w_k, tokens),
        .ov_circuit_equal = ov_circuit(w_out2, w_v2) == ov_circuit(w_out, w_v),
        .values_equal = head_values(w_out2, w_v2, tokens) == head_values(w_out, w_v, tokens),
    };
}

constexpr bool all_hold(const refactorization_check& c)
{
    return c.factors_differ && c.qk_circuit_equal && c.scores_equal && c.scores_from_circuit &&
           c.ov_circuit_equal && c.values_equal;
}

static_assert(all_hold(refactor_head(1)), "T1: refactored heads have identical circuits, scores and values (seed 1)");
static_assert(all_hold(refactor_head(2)), "T1: refactored heads have identical circuits, scores and values (seed 2)");
static_assert(all_hold(refactor_head(3)), "T1: refactored heads have identical circuits, scores and values (seed 3)");

} // namespace
