// The run-time xtensor layer (include/qkov/numeric), checked against references computed a
// different way: closed forms, plain loops in long double, the Hugging Face formulation of
// rotate_half RoPE, and a symmetric eigensolver on the dense product. Every comparison with a
// tolerance is a validation (a numerical agreement), not a proof; the test names say so.
#define BOOST_TEST_MODULE qkov numeric
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <xtensor-blas/xlinalg.hpp>

#include "qkov/circuits/attention_pattern.hpp"
#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/numeric/attention_mass.hpp"
#include "qkov/numeric/attention_pattern.hpp"
#include "qkov/numeric/attention_scores.hpp"
#include "qkov/numeric/blas_threads.hpp"
#include "qkov/numeric/factored_matrix.hpp"
#include "qkov/numeric/from_matrix.hpp"
#include "qkov/numeric/large_page_allocator.hpp"
#include "qkov/numeric/last_query_weights.hpp"
#include "qkov/numeric/multi_head_attention.hpp"
#include "qkov/numeric/rope_batch.hpp"
#include "qkov/numeric/rope_head.hpp"
#include "qkov/numeric/softmax.hpp"
#include "qkov/numeric/stacked_heads.hpp"
#include "qkov/numeric/tabulated_angles.hpp"
#include "qkov/numeric/vector_exp.hpp"

using namespace qkov;
using namespace qkov::numeric;
using ld = long double;

namespace {

template <class T>
tensor2<T> random_tensor(std::size_t rows, std::size_t cols, unsigned seed, double scale = 1.0)
{
    std::mt19937 gen(seed);
    std::normal_distribution<double> normal(0.0, scale);
    tensor2<T> t = tensor2<T>::from_shape({rows, cols});
    for (auto& x : t) x = static_cast<T>(normal(gen));
    return t;
}

/// theta_l = base^(-2l / rotary_dim), computed here in long double (not by standard_theta).
std::vector<ld> reference_theta(std::size_t rotary_dim, ld base = 10000)
{
    std::vector<ld> theta(rotary_dim / 2);
    for (std::size_t l = 0; l < theta.size(); ++l) theta[l] = std::pow(base, -ld(2 * l) / ld(rotary_dim));
    return theta;
}

/// Plain triple loop: scale * Q K^T in long double.
template <class T>
std::vector<std::vector<ld>> naive_scores(const tensor2<T>& q, const tensor2<T>& k, ld scale)
{
    std::vector<std::vector<ld>> s(q.shape()[0], std::vector<ld>(k.shape()[0], 0));
    for (std::size_t i = 0; i < q.shape()[0]; ++i)
        for (std::size_t j = 0; j < k.shape()[0]; ++j) {
            ld sum = 0;
            for (std::size_t c = 0; c < q.shape()[1]; ++c) sum += ld(q(i, c)) * ld(k(j, c));
            s[i][j] = scale * sum;
        }
    return s;
}

/// Softmax of row[0 .. visible) in long double, the textbook way (exp / sum, shifted by the max).
std::vector<ld> naive_softmax(const std::vector<ld>& row, std::size_t visible)
{
    ld top = row[0];
    for (std::size_t j = 0; j < visible; ++j) top = std::max(top, row[j]);
    std::vector<ld> p(row.size(), 0);
    ld sum = 0;
    for (std::size_t j = 0; j < visible; ++j) sum += (p[j] = std::exp(row[j] - top));
    for (std::size_t j = 0; j < visible; ++j) p[j] /= sum;
    return p;
}

constexpr std::size_t d_small = 8;

} // namespace

BOOST_AUTO_TEST_SUITE(numeric)

BOOST_AUTO_TEST_CASE(validate_interleaved_rope_against_the_rotation_formula)
{
    constexpr rope_layout layout = interleaved_layout(d_small);
    const numeric_angles<double, d_small / 2> angles{standard_theta<double, d_small / 2>(10000)};
    const auto theta = reference_theta(d_small);
    const tensor2<double> original = random_tensor<double>(6, d_small, 1);
    tensor2<double> rotated = original;
    rotate_rows(rotated, layout, angles, 3);
    for (std::size_t t = 0; t < 6; ++t)
        for (std::size_t l = 0; l < d_small / 2; ++l) {
            const ld angle = ld(3 + t) * theta[l], x = original(t, 2 * l), y = original(t, 2 * l + 1);
            BOOST_TEST(rotated(t, 2 * l) == double(x * std::cos(angle) - y * std::sin(angle)), boost::test_tools::tolerance(1e-12));
            BOOST_TEST(rotated(t, 2 * l + 1) == double(x * std::sin(angle) + y * std::cos(angle)), boost::test_tools::tolerance(1e-12));
        }
}

BOOST_AUTO_TEST_CASE(validate_partial_rotate_half_rope_against_the_hugging_face_formulation)
{
    // Hugging Face: q' = q * cos + rotate_half(q) * sin on the first rotary_dim coordinates, with
    // rotate_half(q) = (-q[h:], q[:h]) and cos = (cos(m theta), cos(m theta)), h = rotary_dim / 2.
    constexpr std::size_t d = 10, rotary_dim = 6, h = rotary_dim / 2;
    const rope_layout layout{d, rotary_dim, rope_pairing::rotate_half};
    const numeric_angles<double, h> angles{standard_theta<double, h>(10000)};
    const auto theta = reference_theta(rotary_dim);
    const tensor2<double> original = random_tensor<double>(5, d, 2);
    tensor2<double> rotated = original;
    rotate_rows(rotated, layout, angles);
    for (std::size_t m = 0; m < 5; ++m) {
        for (std::size_t c = 0; c < rotary_dim; ++c) {
            const ld angle = ld(m) * theta[c % h];
            const ld half = c < h ? -ld(original(m, c + h)) : ld(original(m, c - h));
            BOOST_TEST(rotated(m, c) == double(ld(original(m, c)) * std::cos(angle) + half * std::sin(angle)),
                       boost::test_tools::tolerance(1e-12));
        }
        for (std::size_t c = rotary_dim; c < d; ++c) BOOST_TEST(rotated(m, c) == original(m, c));  // passes through exactly
    }
}

BOOST_AUTO_TEST_CASE(rope_rejects_bad_layouts_widths_and_schedules)
{
    const numeric_angles<double, 4> angles{standard_theta<double, 4>(10000)};
    tensor2<double> rows = random_tensor<double>(2, 8, 3);
    tensor2<double> narrow = random_tensor<double>(2, 6, 3);
    BOOST_CHECK_THROW(rotate_rows(narrow, interleaved_layout(8), angles), std::invalid_argument);
    BOOST_CHECK_THROW(rotate_rows(rows, rope_layout{8, 7, rope_pairing::interleaved}, angles), std::invalid_argument);
    BOOST_CHECK_THROW(rotate_rows(rows, rope_layout{8, 10, rope_pairing::interleaved}, angles), std::invalid_argument);
    BOOST_CHECK_THROW(rotate_rows(rows, rope_layout{8, 4, rope_pairing::interleaved}, angles), std::invalid_argument);  // 4 angles, 2 pairs
    try {
        rotate_rows(narrow, interleaved_layout(8), angles);
    } catch (const std::invalid_argument& e) {
        BOOST_TEST(std::string(e.what()).find("[2 x 6]") != std::string::npos);  // the message names the shape
    }
}

BOOST_AUTO_TEST_CASE(validate_scores_against_a_naive_loop_in_both_maskings_and_precisions)
{
    // n = 300 spans three causal blocks of 128 rows, so block edges are exercised.
    const std::size_t n = 300, d = 16;
    const tensor2<double> q = random_tensor<double>(n, d, 4), k = random_tensor<double>(n, d, 5);
    const auto reference = naive_scores(q, k, 0.25L);
    const auto full = attention_scores(q, k, 0.25, masking::none);
    const auto causal = attention_scores(q, k, 0.25, masking::causal);
    const tensor2<float> qf = q, kf = k;
    const auto causal_f = attention_scores(qf, kf, 0.25f, masking::causal);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            BOOST_TEST(full(i, j) == double(reference[i][j]), boost::test_tools::tolerance(1e-11));
            if (j <= i) {
                BOOST_TEST(causal(i, j) == double(reference[i][j]), boost::test_tools::tolerance(1e-11));
                BOOST_TEST(std::abs(causal_f(i, j) - double(reference[i][j])) < 1e-4);
            } else {
                BOOST_TEST(std::isinf(causal(i, j)));
                BOOST_TEST(causal(i, j) < 0);
            }
        }
}

BOOST_AUTO_TEST_CASE(scores_reject_mismatched_widths_and_non_square_causal)
{
    const tensor2<double> q = random_tensor<double>(4, 8, 6), k = random_tensor<double>(4, 6, 7), k5 = random_tensor<double>(5, 8, 7);
    BOOST_CHECK_THROW(attention_scores(q, k), std::invalid_argument);
    BOOST_CHECK_NO_THROW(attention_scores(q, k5));
    BOOST_CHECK_THROW(attention_scores(q, k5, 1.0, masking::causal), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(validate_softmax_and_log_softmax_against_long_double)
{
    const std::size_t n = 40;
    const tensor2<double> q = random_tensor<double>(n, 8, 8, 3.0), k = random_tensor<double>(n, 8, 9, 3.0);
    const auto reference = naive_scores(q, k, 1.0L);
    for (const masking mask : {masking::none, masking::causal}) {
        tensor2<double> pattern = attention_scores(q, k, 1.0, mask), logs = pattern;
        softmax_in_place(pattern, mask);
        log_softmax_in_place(logs, mask);
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t visible = mask == masking::causal ? i + 1 : n;
            const auto p = naive_softmax(reference[i], visible);
            for (std::size_t j = 0; j < n; ++j) {
                BOOST_TEST(pattern(i, j) == double(p[j]), boost::test_tools::tolerance(1e-10));
                // log p = score - normalizer cancels where p is near 1: compare absolutely there.
                if (j < visible)
                    BOOST_TEST(std::abs(logs(i, j) - double(std::log(p[j]))) < 1e-12 * std::max(1.0, std::abs(double(std::log(p[j])))));
                else
                    BOOST_TEST((pattern(i, j) == 0.0 && std::isinf(logs(i, j))));
            }
        }
    }
    tensor2<double> rectangular = random_tensor<double>(3, 4, 10);
    BOOST_CHECK_THROW(softmax_in_place(rectangular, masking::causal), std::invalid_argument);
    BOOST_CHECK_THROW(log_softmax_in_place(rectangular, masking::causal), std::invalid_argument);
}

// Seed 001's previous-token head at L = 20, D = 768, d = 64 through the run-time path, against
// R4's closed form q_{n+1}^T k_m = alpha sum_l cos((m - n) theta_l) evaluated in long double.
template <class T>
void check_previous_token_head(double alpha, double score_tolerance, double log_tolerance)
{
    constexpr std::size_t D = 768, d = 64, L = 20;
    constexpr rope_layout layout = interleaved_layout(d);
    const numeric_angles<T, d / 2> angles{standard_theta<T, d / 2>(10000)};
    const auto head = std::make_unique<qk_factors<T, d, D>>(previous_token_head<layout, D>(angles, T(alpha)));
    const tensor2<T> w_q = to_tensor(head->w_q), w_k = to_tensor(head->w_k);
    tensor2<T> tokens = random_tensor<T>(L, D, 11);
    for (std::size_t t = 0; t < L; ++t) tokens(t, 0) = T(1);  // the constant coordinate the head reads

    const tensor2<T> scores = rope_head_scores(tokens, head_projection<T>{w_q, w_k}, std::optional(layout), angles);
    const auto theta = reference_theta(d);
    std::vector<std::vector<ld>> closed_form(L, std::vector<ld>(L, 0));
    for (std::size_t i = 0; i < L; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
            ld sum = 0;  // query i = n + 1, key j = m: alpha sum_l cos((m - n) theta_l) with n = i - 1
            for (const ld th : theta) sum += std::cos((ld(j) - ld(i) + 1) * th);
            closed_form[i][j] = ld(alpha) * sum;
            BOOST_TEST(std::abs(double(scores(i, j)) - double(closed_form[i][j])) < score_tolerance * alpha);
        }

    const auto masses = previous_token_log_masses(scores);
    BOOST_TEST_REQUIRE(masses.size() == L - 1);
    for (const auto& m : masses) {
        const auto& row = closed_form[m.query];
        ld top = row[0];
        for (std::size_t j = 0; j <= m.query; ++j) top = std::max(top, row[j]);
        ld all = 0, off = 0;
        for (std::size_t j = 0; j <= m.query; ++j) {
            all += std::exp(row[j] - top);
            if (j != m.key) off += std::exp(row[j] - top);
        }
        BOOST_TEST(m.key == m.query - 1);
        BOOST_TEST(std::abs(m.on - double(row[m.key] - top - std::log(all))) < log_tolerance);
        // Every row i >= 1 sees at least one other key (itself), so the off mass is never empty.
        BOOST_TEST(std::abs(m.off - double(std::log(off) - std::log(all))) < log_tolerance);
    }
}

BOOST_AUTO_TEST_CASE(validate_previous_token_head_scores_and_log_masses_double)
{
    for (const double alpha : {1.0, 10.0, 100.0}) check_previous_token_head<double>(alpha, 1e-12, 1e-9);
}

BOOST_AUTO_TEST_CASE(validate_previous_token_head_scores_and_log_masses_float)
{
    for (const double alpha : {1.0, 10.0, 100.0}) check_previous_token_head<float>(alpha, 2e-5, 2e-2);
}

BOOST_AUTO_TEST_CASE(float_patterns_underflow_where_log_masses_do_not)
{
    // alpha = 100: the weight off the previous token is ~1e-47 < FLT_MIN, so the float pattern
    // holds exactly the previous-token weight 1 and zeros, while the log mass stays finite.
    constexpr std::size_t D = 768, d = 64, L = 20;
    constexpr rope_layout layout = interleaved_layout(d);
    const numeric_angles<float, d / 2> angles{standard_theta<float, d / 2>(10000)};
    const auto head = std::make_unique<qk_factors<float, d, D>>(previous_token_head<layout, D>(angles, 100.0f));
    const tensor2<float> w_q = to_tensor(head->w_q), w_k = to_tensor(head->w_k);
    tensor2<float> tokens = xt::zeros<float>({L, D});
    for (std::size_t t = 0; t < L; ++t) tokens(t, 0) = 1.0f;
    const tensor2<float> scores = rope_head_scores(tokens, head_projection<float>{w_q, w_k}, std::optional(layout), angles);
    tensor2<float> pattern = scores;
    softmax_in_place(pattern, masking::causal);
    const auto masses = previous_token_log_masses(scores);
    const auto& last = masses.back();
    BOOST_TEST(pattern(L - 1, L - 2) == 1.0f);
    BOOST_TEST(last.off < std::log(double(std::numeric_limits<float>::min())));  // below float's normal range
    BOOST_TEST(std::isfinite(last.off));
}

// K1: multi-head attention against a plain loop implementation in long double.
BOOST_AUTO_TEST_CASE(validate_multi_head_attention_against_plain_loops)
{
    const std::size_t n = 7, D = 12, heads = 3, dh = D / heads;
    const tensor2<double> x = random_tensor<double>(n, D, 20), wq = random_tensor<double>(D, D, 21, 0.5),
                          wk = random_tensor<double>(D, D, 22, 0.5), wv = random_tensor<double>(D, D, 23),
                          wo = random_tensor<double>(D, D, 24);
    auto project = [&](const tensor2<double>& w) {  // x W^T
        std::vector<std::vector<ld>> r(n, std::vector<ld>(D, 0));
        for (std::size_t t = 0; t < n; ++t)
            for (std::size_t o = 0; o < D; ++o)
                for (std::size_t i = 0; i < D; ++i) r[t][o] += ld(x(t, i)) * ld(w(o, i));
        return r;
    };
    const auto q = project(wq), k = project(wk), v = project(wv);
    for (const masking mask : {masking::none, masking::causal}) {
        const auto result = multi_head_attention(x, multi_head_weights<double>{wq, wk, wv, wo}, heads, mask);
        std::vector<std::vector<ld>> concat(n, std::vector<ld>(D, 0));
        for (std::size_t h = 0; h < heads; ++h)
            for (std::size_t i = 0; i < n; ++i) {
                std::vector<ld> s(n, 0);
                for (std::size_t j = 0; j < n; ++j)
                    for (std::size_t c = h * dh; c < (h + 1) * dh; ++c) s[j] += q[i][c] * k[j][c] / std::sqrt(ld(dh));
                const auto p = naive_softmax(s, mask == masking::causal ? i + 1 : n);
                for (std::size_t j = 0; j < n; ++j) {
                    BOOST_TEST(result.weights(h, i, j) == double(p[j]), boost::test_tools::tolerance(1e-10));
                    for (std::size_t c = h * dh; c < (h + 1) * dh; ++c) concat[i][c] += p[j] * v[j][c];
                }
            }
        for (std::size_t t = 0; t < n; ++t)
            for (std::size_t o = 0; o < D; ++o) {
                ld out = 0;
                for (std::size_t c = 0; c < D; ++c) out += concat[t][c] * ld(wo(o, c));
                BOOST_TEST(result.output(t, o) == double(out), boost::test_tools::tolerance(1e-9));
            }
    }
}

BOOST_AUTO_TEST_CASE(multi_head_attention_rejects_bad_head_counts_and_shapes)
{
    const tensor2<double> x = random_tensor<double>(3, 12, 30), w = random_tensor<double>(12, 12, 31), bad = random_tensor<double>(12, 8, 32);
    BOOST_CHECK_THROW(multi_head_attention(x, multi_head_weights<double>{w, w, w, w}, 5), std::invalid_argument);
    BOOST_CHECK_THROW(multi_head_attention(x, multi_head_weights<double>{w, w, w, w}, 0), std::invalid_argument);
    BOOST_CHECK_THROW(multi_head_attention(x, multi_head_weights<double>{w, w, bad, w}, 3), std::invalid_argument);
}

// Factored matrices: from the factors vs the dense product, computed another way.
BOOST_AUTO_TEST_CASE(validate_factored_singular_values_and_norm_against_the_dense_product)
{
    for (const auto [m, r, n] : {std::array<std::size_t, 3>{30, 4, 25}, std::array<std::size_t, 3>{3, 5, 20}}) {
        const factored_matrix<double> f(random_tensor<double>(m, r, 40), random_tensor<double>(r, n, 41));
        const tensor2<double> dense = f.dense();
        // Reference: square roots of the eigenvalues of the symmetric (AB)^T (AB) (a symmetric
        // eigensolver on the dense n x n Gram matrix, not an SVD of the factors).
        tensor2<double> gram = xt::zeros<double>({n, n});
        ld frobenius = 0;
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j) frobenius += ld(dense(i, j)) * ld(dense(i, j));
        for (std::size_t a = 0; a < n; ++a)
            for (std::size_t b = 0; b < n; ++b)
                for (std::size_t i = 0; i < m; ++i) gram(a, b) += dense(i, a) * dense(i, b);
        xt::xtensor<double, 1> eig = xt::linalg::eigvalsh(gram);
        std::sort(eig.begin(), eig.end(), std::greater<>());
        const auto sv = f.singular_values();
        BOOST_TEST_REQUIRE(sv.size() == std::min({m, r, n}));
        for (std::size_t k = 0; k < sv.size(); ++k) BOOST_TEST(sv(k) == std::sqrt(eig(k)), boost::test_tools::tolerance(1e-9));
        BOOST_TEST(f.frobenius_norm() == double(std::sqrt(frobenius)), boost::test_tools::tolerance(1e-12));
    }
}

BOOST_AUTO_TEST_CASE(validate_factored_rank_one_closed_forms)
{
    // A = u (m x 1), B = v^T (1 x m): the one nonzero singular value is |u| |v|, the one nonzero
    // eigenvalue v . u, and ||u v^T - I||_F^2 = |u|^2 |v|^2 - 2 v.u + m.
    const tensor2<double> u = {{1.0}, {2.0}, {-2.0}}, v = {{3.0, 0.0, 4.0}};
    const factored_matrix<double> f(u, v);
    BOOST_TEST(f.singular_values()(0) == 15.0, boost::test_tools::tolerance(1e-14));  // |u| = 3, |v| = 5
    BOOST_TEST(f.eigenvalues()(0).real() == -5.0, boost::test_tools::tolerance(1e-14));  // 3 - 8
    BOOST_TEST(f.eigenvalues()(0).imag() == 0.0);
    BOOST_TEST(f.distance_from_identity() == std::sqrt(225.0 + 10.0 + 3.0), boost::test_tools::tolerance(1e-14));
}

BOOST_AUTO_TEST_CASE(validate_factored_eigenvalues_of_a_chosen_spectrum)
{
    // B = diag(lambda) (A^T A)^-1 A^T makes B A = diag(lambda): A B has the eigenvalues lambda and zeros.
    const std::size_t m = 40, r = 5;
    const tensor2<double> a = random_tensor<double>(m, r, 50);
    const std::vector<double> lambda{3.0, -2.0, 0.5, 7.0, -0.25};
    const tensor2<double> a_t = xt::transpose(a);
    const tensor2<double> gram_inverse = xt::linalg::inv(tensor2<double>(xt::linalg::dot(a_t, a)));
    tensor2<double> b = xt::linalg::dot(gram_inverse, a_t);
    for (std::size_t k = 0; k < r; ++k) xt::view(b, k, xt::all()) *= lambda[k];
    const factored_matrix<double> f(a, b);
    auto eig = f.eigenvalues();
    std::vector<double> real(eig.size());
    for (std::size_t k = 0; k < eig.size(); ++k) {
        real[k] = eig(k).real();
        BOOST_TEST(std::abs(eig(k).imag()) < 1e-10);
    }
    std::sort(real.begin(), real.end());
    std::vector<double> expected = lambda;
    std::sort(expected.begin(), expected.end());
    for (std::size_t k = 0; k < r; ++k) BOOST_TEST(real[k] == expected[k], boost::test_tools::tolerance(1e-9));
    // The same spectrum read off the dense 40 x 40 product by a plain trace: sum of eigenvalues.
    const tensor2<double> dense = f.dense();
    ld trace = 0;
    for (std::size_t i = 0; i < m; ++i) trace += dense(i, i);
    BOOST_TEST(double(trace) == 8.25, boost::test_tools::tolerance(1e-10));
}

BOOST_AUTO_TEST_CASE(factored_matrix_rejects_mismatched_factors_and_non_square_questions)
{
    BOOST_CHECK_THROW(factored_matrix<double>(random_tensor<double>(5, 3, 60), random_tensor<double>(4, 5, 61)), std::invalid_argument);
    BOOST_CHECK_THROW(factored_matrix<double>(tensor2<double>::from_shape({5, 0}), tensor2<double>::from_shape({0, 5})),
                      std::invalid_argument);
    const factored_matrix<double> wide(random_tensor<double>(5, 2, 62), random_tensor<double>(2, 7, 63));
    BOOST_CHECK_THROW(static_cast<void>(wide.eigenvalues()), std::invalid_argument);
    BOOST_CHECK_THROW(static_cast<void>(wide.distance_from_identity()), std::invalid_argument);
}

// The vectorized exp kernel against long double std::exp, in units of the last place of T.
template <class T>
void check_branch_free_exp(double low, double high, double ulps)
{
    std::mt19937 gen(21);
    std::uniform_real_distribution<double> uniform(low, high);
    std::vector<T> x(10007), y;  // an odd count: the scalar tail runs too
    for (auto& v : x) v = T(uniform(gen));
    y = x;
    exp_shifted_in_place(y.data(), y.size(), T(0));
    double worst = 0;
    for (std::size_t j = 0; j < x.size(); ++j) {
        const ld reference = std::exp(ld(x[j]));
        const T rounded = T(reference);
        const ld ulp = ld(std::nextafter(rounded, std::numeric_limits<T>::infinity())) - ld(rounded);
        worst = std::max(worst, double(std::abs(ld(y[j]) - reference) / ulp));
    }
    BOOST_TEST_MESSAGE("validation: branch-free exp, worst error " << worst << " ulp on [" << low << ", " << high << "]");
    BOOST_TEST(worst <= ulps);
}

BOOST_AUTO_TEST_CASE(validate_branch_free_exp_against_long_double_within_two_ulps)
{
    check_branch_free_exp<double>(-708, 709.7, 2);
    check_branch_free_exp<double>(-40, 0, 2);  // the softmax range
    check_branch_free_exp<float>(-86.5, 88.7, 2);
    check_branch_free_exp<float>(-20, 0, 2);
}

// The array loop (AVX2 where the processor has it) must give exactly what the 16-byte SSE2 loop
// gives, lane by lane, including the clamps, flushes, infinities and NaN.
template <class T>
void check_exp_loops_agree()
{
    std::mt19937 gen(22);
    std::uniform_real_distribution<double> uniform(-800, 800);
    std::vector<T> x(4099);  // not a multiple of either vector width: both tails run
    for (auto& v : x) v = T(uniform(gen));
    x[1] = std::numeric_limits<T>::infinity(), x[2] = -std::numeric_limits<T>::infinity();
    x[3] = std::numeric_limits<T>::quiet_NaN(), x[4] = T(0);
    std::vector<T> dispatched = x, sse2 = x;
    exp_shifted_in_place(dispatched.data(), dispatched.size(), T(0.25));
    qkov::numeric::detail::exp_shifted_lanes<T, 16>(sse2.data(), sse2.size(), T(0.25));
    std::size_t differing = 0;
    for (std::size_t j = 0; j < x.size(); ++j)
        if (std::memcmp(&dispatched[j], &sse2[j], sizeof(T)) != 0) ++differing;
    BOOST_TEST(differing == 0u);
}

BOOST_AUTO_TEST_CASE(exp_array_loop_matches_the_sse2_loop_bit_for_bit)
{
    check_exp_loops_agree<double>();
    check_exp_loops_agree<float>();
}

BOOST_AUTO_TEST_CASE(branch_free_exp_special_values)
{
    constexpr double inf = std::numeric_limits<double>::infinity();
    BOOST_TEST(exp_branch_free(0.0) == 1.0);  // n = 0, r = 0: exact
    BOOST_TEST(exp_branch_free(0.0f) == 1.0f);
    BOOST_TEST(exp_branch_free(-inf) == 0.0);
    BOOST_TEST(exp_branch_free(inf) == inf);
    BOOST_TEST(std::isnan(exp_branch_free(std::numeric_limits<double>::quiet_NaN())));
    BOOST_TEST(std::isnan(exp_branch_free(std::numeric_limits<float>::quiet_NaN())));
    BOOST_TEST(exp_branch_free(-708.5) == 0.0);   // below the normal range: flushed (std::exp gives 2.0e-308)
    BOOST_TEST(exp_branch_free(-86.6f) == 0.0f);  // float: flushed (std::exp gives 2.5e-38)
    BOOST_TEST(exp_branch_free(709.9) == inf);    // exp(709.9) > DBL_MAX = exp(709.78)
    BOOST_TEST(exp_branch_free(88.8f) == std::numeric_limits<float>::infinity());
    BOOST_TEST(std::isfinite(exp_branch_free(709.78)));
    BOOST_TEST(exp_branch_free(-707.9) > 0.0);
}

// The fused pattern (scores, scaling, mask and softmax in one pass over row blocks, in parallel)
// against the textbook softmax of long double scores; sizes straddle the row-block size.
template <class T>
void check_fused_pattern(double tolerance)
{
    for (const std::size_t n : {std::size_t(1), std::size_t(31), std::size_t(70), std::size_t(257)}) {
        const tensor2<T> q = random_tensor<T>(n, d_small, 31, 2.0), k = random_tensor<T>(n, d_small, 32, 2.0);
        const auto reference = naive_scores(q, k, 0.5L);
        for (const masking mask : {masking::none, masking::causal}) {
            const tensor2<T> pattern = attention_pattern(q, k, T(0.5), mask);
            double worst = 0;
            for (std::size_t i = 0; i < n; ++i) {
                const auto p = naive_softmax(reference[i], mask == masking::causal ? i + 1 : n);
                for (std::size_t j = 0; j < n; ++j) {
                    if (p[j] == 0) BOOST_TEST(pattern(i, j) == T(0));  // masked: exactly 0
                    worst = std::max(worst, double(std::abs(ld(pattern(i, j)) - p[j])));
                }
            }
            BOOST_TEST(worst < tolerance, "n = " << n << ": worst weight error " << worst);
        }
    }
}

BOOST_AUTO_TEST_CASE(validate_fused_attention_pattern_against_a_naive_softmax)
{
    check_fused_pattern<double>(1e-14);
    check_fused_pattern<float>(3e-6);
    // Non-square without mask: 5 queries against 9 keys.
    const tensor2<double> q = random_tensor<double>(5, 4, 33), k = random_tensor<double>(9, 4, 34);
    const auto reference = naive_scores(q, k, 1.0L);
    const tensor2<double> pattern = attention_pattern(q, k);
    for (std::size_t i = 0; i < 5; ++i) {
        const auto p = naive_softmax(reference[i], 9);
        for (std::size_t j = 0; j < 9; ++j) BOOST_TEST(pattern(i, j) == double(p[j]), boost::test_tools::tolerance(1e-13));
    }
}

BOOST_AUTO_TEST_CASE(validate_row_split_products_against_a_naive_loop)
{
    // 301 rows: product() splits them over the worker threads in unequal blocks; every entry is
    // compared with a plain long double loop, in both orientations of B, within the rounding bound
    // of a 9-term double dot product (well under 1e-14 times the sum of the terms' magnitudes).
    const tensor2<double> a = random_tensor<double>(301, 9, 41), b = random_tensor<double>(6, 9, 42), bt = random_tensor<double>(9, 6, 43);
    const tensor2<double> abt = product(a, b, transposed::yes), ab = product(a, bt);
    BOOST_TEST((abt.shape()[0] == 301 && abt.shape()[1] == 6 && ab.shape()[0] == 301 && ab.shape()[1] == 6));
    for (std::size_t i = 0; i < 301; ++i)
        for (std::size_t j = 0; j < 6; ++j) {
            ld sum_t = 0, sum = 0, magnitude_t = 0, magnitude = 0;
            for (std::size_t c = 0; c < 9; ++c) {
                sum_t += ld(a(i, c)) * ld(b(j, c)), sum += ld(a(i, c)) * ld(bt(c, j));
                magnitude_t += std::abs(ld(a(i, c)) * ld(b(j, c))), magnitude += std::abs(ld(a(i, c)) * ld(bt(c, j)));
            }
            BOOST_TEST(std::abs(ld(abt(i, j)) - sum_t) <= 1e-14L * magnitude_t);
            BOOST_TEST(std::abs(ld(ab(i, j)) - sum) <= 1e-14L * magnitude);
        }
}

BOOST_AUTO_TEST_CASE(product_into_writes_its_columns_only)
{
    // 301 x 9 times 9 x 6 into columns 4 .. 9 of a 301 x 13 matrix filled with 7: those columns
    // equal the naive long double product (same bound as above), the others keep their 7.
    const tensor2<double> a = random_tensor<double>(301, 9, 44), b = random_tensor<double>(9, 6, 45);
    tensor2<double> c = tensor2<double>::from_shape({301, 13});
    std::fill(c.begin(), c.end(), 7.0);
    product_into(a, b, transposed::no, c, 4);
    for (std::size_t i = 0; i < 301; ++i)
        for (std::size_t j = 0; j < 13; ++j) {
            if (j < 4 || j >= 10) {
                BOOST_TEST(c(i, j) == 7.0);
                continue;
            }
            ld sum = 0, magnitude = 0;
            for (std::size_t k = 0; k < 9; ++k) sum += ld(a(i, k)) * ld(b(k, j - 4)), magnitude += std::abs(ld(a(i, k)) * ld(b(k, j - 4)));
            BOOST_TEST(std::abs(ld(c(i, j)) - sum) <= 1e-14L * magnitude);
        }
    tensor2<double> short_c = tensor2<double>::from_shape({300, 13}), narrow_c = tensor2<double>::from_shape({301, 9});
    const auto message = [](auto&& f) {
        try {
            f();
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    const std::string rows = message([&] { product_into(a, b, transposed::no, short_c, 0); });
    BOOST_TEST(rows.find("must have the left factor's 301 rows") != std::string::npos, rows);
    const std::string columns = message([&] { product_into(a, b, transposed::no, narrow_c, 4); });
    BOOST_TEST(columns.find("too small for the block") != std::string::npos, columns);
}

BOOST_AUTO_TEST_CASE(single_threaded_blas_sets_one_thread_and_restores_the_count)
{
    if (openblas_get_num_threads == nullptr) {
        BOOST_TEST_MESSAGE("the BLAS is not OpenBLAS: the guard has nothing to set");
        return;
    }
    openblas_set_num_threads(2);
    const int before = openblas_get_num_threads();
    {
        const single_threaded_blas guard;
        BOOST_TEST(openblas_get_num_threads() == 1);
        {
            const single_threaded_blas nested;  // nesting keeps one thread and restores nothing early
            BOOST_TEST(openblas_get_num_threads() == 1);
        }
        BOOST_TEST(openblas_get_num_threads() == 1);
    }
    BOOST_TEST(openblas_get_num_threads() == before);
}

// The fused kernel against the library's generic definition of the causal softmax
// (circuits/attention_pattern.hpp, the one the certified proofs evaluate in intervals), in double.
BOOST_AUTO_TEST_CASE(validate_fused_pattern_against_the_generic_causal_softmax)
{
    constexpr std::size_t n = 40;
    const tensor2<double> q = random_tensor<double>(n, d_small, 41, 2.0), k = random_tensor<double>(n, d_small, 42, 2.0);
    const tensor2<double> fused = attention_pattern(q, k, 0.5, masking::causal);
    auto score = [&](std::size_t i, std::size_t j) {
        double s = 0;
        for (std::size_t c = 0; c < d_small; ++c) s += q(i, c) * k(j, c);
        return 0.5 * s;
    };
    const auto generic = std::make_unique<matrix<double, n, n>>(causal_softmax<double, n>(score, [&](std::size_t i) { return score(i, i); }));
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) worst = std::max(worst, std::abs(fused(i, j) - (*generic)(i, j)));
    BOOST_TEST(worst < 1e-14);
}

BOOST_AUTO_TEST_CASE(attention_pattern_rejects_mismatched_widths_and_non_square_causal)
{
    const tensor2<double> q = random_tensor<double>(4, 8, 6), k = random_tensor<double>(4, 6, 7), k5 = random_tensor<double>(5, 8, 7);
    BOOST_CHECK_THROW(attention_pattern(q, k), std::invalid_argument);
    BOOST_CHECK_THROW(attention_pattern(q, k5, 1.0, masking::causal), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(validate_one_row_products_against_a_naive_loop)
{
    // One-row products go through BLAS's matrix-vector routine: both orientations of B.
    const tensor2<double> a = random_tensor<double>(1, 7, 35), b = random_tensor<double>(5, 7, 36), bt = random_tensor<double>(7, 5, 37);
    const tensor2<double> abt = product(a, b, transposed::yes), ab = product(a, bt);
    for (std::size_t j = 0; j < 5; ++j) {
        ld sum_t = 0, sum = 0;
        for (std::size_t c = 0; c < 7; ++c) sum_t += ld(a(0, c)) * ld(b(j, c)), sum += ld(a(0, c)) * ld(bt(c, j));
        BOOST_TEST(abt(0, j) == double(sum_t), boost::test_tools::tolerance(1e-13));
        BOOST_TEST(ab(0, j) == double(sum), boost::test_tools::tolerance(1e-13));
    }
}

BOOST_AUTO_TEST_CASE(tabulated_angles_return_the_provider_values_and_rotate_alike)
{
    const numeric_angles<double, 4> angles{standard_theta<double, 4>(10000)};
    const tabulated_angles table(angles, 3, 10);
    for (std::int64_t position : {0, 3, 7, 12, 13, 40})  // inside and outside the table
        for (std::size_t l = 0; l < 4; ++l) BOOST_TEST((table.cos_sin(l, position) == angles.cos_sin(l, position)));
    // Queries and keys rotated together equal each rotated alone (and large batches run in parallel blocks).
    const rope_layout layout = interleaved_layout(8);
    tensor2<double> q = random_tensor<double>(2100, 8, 38), k = random_tensor<double>(2100, 8, 39), q1 = q, k1 = k;
    rotate_rows(q, k, layout, angles, 5);
    rotate_rows(q1, layout, angles, 5);
    rotate_rows(k1, layout, table, 5);
    BOOST_TEST((q == q1));
    BOOST_TEST((k == k1));
    tensor2<double> short_k = random_tensor<double>(3, 8, 40);
    BOOST_CHECK_THROW(rotate_rows(q, short_k, layout, angles), std::invalid_argument);
}

// The last query's weights of stacked heads against a hand computation in long double: q = W_q x_2,
// k_i = W_k x_i, with RoPE q turned by 2 theta and k_i by i theta ([c -s; s c]), then a softmax
// over the three keys. The one-head form equals its row of the stacked form.
BOOST_AUTO_TEST_CASE(validate_last_query_weights_of_stacked_heads_against_a_hand_computation)
{
    const ld x[3][3] = {{1, 2, 0.5}, {0.3, -1, 2}, {0.7, 0.2, -0.4}};
    tensor2<double> tokens = tensor2<double>::from_shape({3, 3});
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t c = 0; c < 3; ++c) tokens(i, c) = static_cast<double>(x[i][c]);
    tensor2<double> w_q = tensor2<double>::from_shape({2, 3}), w_k = tensor2<double>::from_shape({2, 3});
    w_q.fill(0);
    w_k.fill(0);
    w_q(0, 0) = w_q(1, 1) = 1;  // q = (x_0, x_1)
    w_k(0, 1) = w_k(1, 2) = 1;  // k = (x_1, x_2)
    const ld theta = 0.5L;
    const numeric_angles<double, 1> angles{{static_cast<double>(theta)}};
    const rope_layout layout = interleaved_layout(2);

    auto expected = [&](bool rope) {
        auto turn = [&](ld a, ld b, ld angle) { return std::pair{std::cos(angle) * a - std::sin(angle) * b, std::sin(angle) * a + std::cos(angle) * b}; };
        const auto [q0, q1] = turn(x[2][0], x[2][1], rope ? 2 * theta : 0);
        ld scores[3], total = 0;
        for (std::size_t i = 0; i < 3; ++i) {
            const auto [k0, k1] = turn(x[i][1], x[i][2], rope ? ld(i) * theta : 0);
            scores[i] = std::exp(q0 * k0 + q1 * k1);
            total += scores[i];
        }
        std::vector<ld> w(3);
        for (std::size_t i = 0; i < 3; ++i) w[i] = scores[i] / total;
        return w;
    };
    const auto weights = last_query_weights(tokens, stack_heads({w_q, w_q}, {w_k, w_k}, {true, false}), layout, angles);
    BOOST_TEST_REQUIRE(weights.size() == 2u);
    for (std::size_t h = 0; h < 2; ++h) {
        const auto w = expected(h == 0);
        BOOST_TEST_REQUIRE(weights[h].size() == 3u);
        for (std::size_t i = 0; i < 3; ++i) BOOST_TEST(std::fabs(static_cast<ld>(weights[h][i]) - w[i]) < 1e-14L, h << " " << i);
    }
    BOOST_TEST(weights[0] != weights[1]);  // RoPE changed the row
    BOOST_TEST((last_query_weights(tokens, w_q, w_k, false, layout, angles) == weights[1]));
}

BOOST_AUTO_TEST_CASE(stacked_heads_reject_unequal_shapes_counts_and_token_widths)
{
    const tensor2<double> a = random_tensor<double>(2, 3, 41), b = random_tensor<double>(2, 4, 42);
    BOOST_CHECK_THROW(stack_heads({a, b}, {a, a}, {true, true}), std::invalid_argument);  // W_Q of different widths
    BOOST_CHECK_THROW(stack_heads({a}, {a, a}, {true}), std::invalid_argument);            // two W_K for one W_Q
    BOOST_CHECK_THROW(stack_heads({}, {}, {}), std::invalid_argument);                    // no head
    try {
        stack_heads({a}, {a}, {});
        BOOST_ERROR("a head without its RoPE flag was stacked");
    } catch (const std::invalid_argument& e) {
        BOOST_TEST(std::string(e.what()).find("1 W_Q, 1 W_K, 0 RoPE flags") != std::string::npos, e.what());
    }
    const numeric_angles<double, 1> angles{{0.5}};
    BOOST_CHECK_THROW(last_query_weights(random_tensor<double>(3, 4, 43), stack_heads({a}, {a}, {true}), interleaved_layout(2), angles),
                      std::invalid_argument);  // tokens of width 4 for heads reading 3
}

// Edge sizes of the run-time layer: each once returned a wrong block, wrote out of bounds or
// handed BLAS an illegal argument.
BOOST_AUTO_TEST_CASE(allocator_rounding_never_wraps)
{
    large_page_allocator<double> allocator;
    // bytes = SIZE_MAX - 7: rounded up to 2 MiB pages it used to wrap to 0 and return a tiny block.
    BOOST_CHECK_THROW(static_cast<void>(allocator.allocate(std::numeric_limits<std::size_t>::max() / sizeof(double))), std::bad_alloc);
}

BOOST_AUTO_TEST_CASE(zero_width_operands_give_zero_scores)
{
    const tensor2<double> q = tensor2<double>::from_shape({1, 0}), k = tensor2<double>::from_shape({4, 0});
    const auto one_row = attention_scores(q, k);  // one query: the gemv path
    BOOST_TEST(one_row.shape()[0] == 1u);
    for (double x : one_row) BOOST_TEST(x == 0.0);
    const tensor2<double> q3 = tensor2<double>::from_shape({3, 0});
    const auto scores = attention_scores(q3, k);  // the gemm path
    for (double x : scores) BOOST_TEST(x == 0.0);
    const auto p = product(q3, k, transposed::yes);
    BOOST_TEST(p.size() == 12u);
    for (double x : p) BOOST_TEST(x == 0.0);
}

BOOST_AUTO_TEST_CASE(huge_tables_and_extreme_positions_are_named_errors)
{
    const numeric_angles<double, 4> angles{standard_theta<double, 4>(10000)};
    // count x pairs wrapped to 0 and the constructor wrote into an empty vector.
    BOOST_CHECK_THROW((tabulated_angles(angles, 0, std::numeric_limits<std::size_t>::max() / 2)), std::length_error);
    BOOST_CHECK_THROW((tabulated_angles(angles, std::numeric_limits<std::int64_t>::max() - 2, 10)), std::invalid_argument);
    // A table near the top of the positions answers positions far below it without overflow.
    const tabulated_angles table(angles, std::numeric_limits<std::int64_t>::max() - 3, 4);
    const auto far = table.cos_sin(1, std::numeric_limits<std::int64_t>::min());
    const auto direct = angles.cos_sin(1, std::numeric_limits<std::int64_t>::min());
    BOOST_TEST(far.first == direct.first);
    BOOST_TEST(far.second == direct.second);
    const rope_layout layout = interleaved_layout(8);
    tensor2<double> rows = random_tensor<double>(3, 8, 41);
    BOOST_CHECK_THROW(rotate_rows(rows, layout, angles, std::numeric_limits<std::int64_t>::max() - 1), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(factored_matrix_refuses_nan_and_infinite_factors)
{
    tensor2<double> a = random_tensor<double>(4, 2, 42), b = random_tensor<double>(2, 4, 43);
    a(1, 1) = std::numeric_limits<double>::quiet_NaN();
    try {
        const factored_matrix<double> m(a, b);
        BOOST_ERROR("a NaN factor was accepted; its norm is " << m.frobenius_norm());
    } catch (const std::invalid_argument& e) {
        BOOST_TEST(std::string(e.what()).find("the left factor A of A B holds NaN at (1, 1)") != std::string::npos, e.what());
    }
    a(1, 1) = 0.5;
    b(0, 3) = -std::numeric_limits<double>::infinity();
    try {
        const factored_matrix<double> m(a, b);
        BOOST_ERROR("an infinite factor was accepted; distance from I " << m.distance_from_identity());
    } catch (const std::invalid_argument& e) {
        BOOST_TEST(std::string(e.what()).find("the right factor B of A B holds an infinity at (0, 3)") != std::string::npos, e.what());
    }
}

// Guards of different threads overlap in any order: BLAS stays on one thread until the last ends.
BOOST_AUTO_TEST_CASE(single_threaded_blas_holds_until_the_last_guard_of_any_thread_ends)
{
    if (openblas_get_num_threads == nullptr) {
        BOOST_TEST_MESSAGE("not OpenBLAS: the guard does nothing");
        return;
    }
    openblas_set_num_threads(2);
    auto first = std::make_unique<single_threaded_blas>();
    std::unique_ptr<single_threaded_blas> second;
    std::thread other([&] { second = std::make_unique<single_threaded_blas>(); });
    other.join();
    first.reset();  // the first guard ends while the other thread's is alive
    BOOST_TEST(openblas_get_num_threads() == 1);
    std::thread([&] { second.reset(); }).join();
    BOOST_TEST(openblas_get_num_threads() == 2);
}

BOOST_AUTO_TEST_SUITE_END()
