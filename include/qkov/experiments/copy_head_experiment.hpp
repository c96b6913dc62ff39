// R14 / seed 000's Experiment 6 and K2 (seed 004): can one head copy every token of a vocabulary?
//
// Embeddings: V token vectors in R^D (D = 768), drawn either isotropic (standard normal) or
// anisotropic (coordinate k has variance 1/(k+1), a decaying spectrum as in trained embeddings).
// The unembedding is tied: W_U = W_E^T. A copy head with head width d writes W_O W_V e_t = U U^T e_t
// for an orthonormal D x d basis U; token t is copied when its own logit e_t^T U U^T e_t is the
// largest of all V logits e_s^T U U^T e_t: the copy head of the literature, which copies the token
// itself (circuits/dimension_copy_head.hpp's dimension_copy_head, which moves chosen residual
// dimensions, is a different object). Two heads per d:
//   PCA      U = the top-d principal directions of W_E (the seed's naive baseline),
//   random   U = a random d-dimensional subspace.
// Accuracy: every token for V <= 4096; above that a uniform sample of 2048 tokens, each still
// competing against the whole vocabulary (the standard error is printed).
// K2: ||W_O W_V - I||_F against the floor sqrt(D - d), and the eigenvalue copying score
// sum Re(lambda) / sum |lambda| of W_U W_O W_V W_E, both from the factors (numeric/factored_matrix.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <xtensor-blas/xlinalg.hpp>

#include "qkov/experiments/experiment.hpp"
#include "qkov/numeric/blas_products.hpp"
#include "qkov/numeric/factored_matrix.hpp"
#include "qkov/report/line_plot.hpp"

namespace qkov::experiments {

namespace copy_detail {

using numeric::tensor2;
constexpr std::size_t residual_width = 768;
constexpr std::size_t token_block = 4096;

enum class spectrum { isotropic, anisotropic };

/// Tokens first .. first + count - 1 of the embedding (one per row), the same for every call.
inline tensor2<double> embedding_rows(spectrum kind, std::size_t first, std::size_t count, unsigned seed)
{
    tensor2<double> rows = tensor2<double>::from_shape({count, residual_width});
    for (std::size_t t = 0; t < count; ++t) {
        std::mt19937_64 gen(seed * 1000003ULL + first + t);  // per token: any block split gives the same tokens
        std::normal_distribution<double> normal;
        for (std::size_t k = 0; k < residual_width; ++k)
            rows(t, k) = normal(gen) * (kind == spectrum::anisotropic ? 1.0 / std::sqrt(double(k + 1)) : 1.0);
    }
    return rows;
}

/// W_E^T W_E's transpose partner: the D x D second-moment matrix sum_t e_t e_t^T, accumulated in blocks.
inline tensor2<double> second_moment(spectrum kind, std::size_t vocabulary, unsigned seed)
{
    tensor2<double> moment = xt::zeros<double>({residual_width, residual_width});
    for (std::size_t first = 0; first < vocabulary; first += token_block) {
        const auto rows = embedding_rows(kind, first, std::min(token_block, vocabulary - first), seed);
        const tensor2<double> rows_t = xt::transpose(rows);
        moment += numeric::product(rows_t, rows);
    }
    return moment;
}

/// D x d orthonormal bases: the top-d eigenvectors of the second moment (PCA, uncentered), or random.
inline tensor2<double> principal_basis(const tensor2<double>& moment, std::size_t d)
{
    const auto [values, vectors] = xt::linalg::eigh(moment);  // ascending eigenvalues
    tensor2<double> basis = tensor2<double>::from_shape({residual_width, d});
    for (std::size_t c = 0; c < d; ++c)
        for (std::size_t k = 0; k < residual_width; ++k) basis(k, c) = vectors(k, residual_width - 1 - c);
    return basis;
}

inline tensor2<double> random_basis(std::size_t d, unsigned seed)
{
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> normal;
    tensor2<double> g = tensor2<double>::from_shape({residual_width, d});
    for (auto& x : g) x = normal(gen);
    auto [q, r] = xt::linalg::qr(g);
    return q;
}

struct copy_accuracy {
    double accuracy;
    double standard_error;  ///< 0 when every token was tested
    std::size_t tested;
};

/// Fraction of tested tokens t whose own logit (U^T e_t) . (U^T e_t) beats every (U^T e_s) . (U^T e_t).
inline copy_accuracy measure_copying(spectrum kind, std::size_t vocabulary, const tensor2<double>& basis, unsigned seed)
{
    const std::size_t d = basis.shape()[1];
    tensor2<double> codes = tensor2<double>::from_shape({vocabulary, d});  // row s = (U^T e_s)^T
    for (std::size_t first = 0; first < vocabulary; first += token_block) {
        const std::size_t count = std::min(token_block, vocabulary - first);
        const auto block = numeric::product(embedding_rows(kind, first, count, seed), basis);
        std::copy(block.begin(), block.end(), codes.begin() + std::ptrdiff_t(first * d));
    }
    std::vector<std::size_t> tested(std::min<std::size_t>(vocabulary, vocabulary <= token_block ? vocabulary : 2048));
    if (tested.size() == vocabulary) {
        std::iota(tested.begin(), tested.end(), std::size_t(0));
    } else {
        std::mt19937_64 gen(seed + 17);
        std::uniform_int_distribution<std::size_t> pick(0, vocabulary - 1);
        for (auto& t : tested) t = pick(gen);
    }
    tensor2<double> queries = tensor2<double>::from_shape({tested.size(), d});
    for (std::size_t i = 0; i < tested.size(); ++i)
        for (std::size_t c = 0; c < d; ++c) queries(i, c) = codes(tested[i], c);
    std::size_t correct = 0;
    for (std::size_t first = 0; first < tested.size(); first += 256) {
        const std::size_t count = std::min<std::size_t>(256, tested.size() - first);
        tensor2<double> logits = tensor2<double>::from_shape({count, vocabulary});
        numeric::gemm_block(queries, first, count, codes, numeric::transposed::yes, 0, vocabulary, 1.0, logits, 0, 0);
        for (std::size_t i = 0; i < count; ++i) {
            const double* row = logits.data() + i * vocabulary;
            correct += std::size_t(std::max_element(row, row + vocabulary) - row) == tested[first + i];
        }
    }
    const double p = double(correct) / double(tested.size());
    const double se = tested.size() == vocabulary ? 0.0 : std::sqrt(p * (1 - p) / double(tested.size()));
    return {p, se, tested.size()};
}

} // namespace copy_detail

inline experiment_result run_copy_head_experiment(const experiment_settings& settings)
{
    using namespace copy_detail;
    const bool full = settings.size == experiment_size::full;
    const std::vector<std::size_t> vocabularies = full ? std::vector<std::size_t>{64, 512, 4096, 16384, 50257}
                                                       : std::vector<std::size_t>{64, 512};
    const std::vector<std::size_t> widths{16, 64, 128};
    experiment_result result;
    result.id = "R14, K2";
    result.title = "can one head copy every token? Copy accuracy against vocabulary size and head width, and the OV circuit's distance from identity";
    result.command = "example_R14_copy_head --out report";

    std::vector<double> v_axis(vocabularies.begin(), vocabularies.end());
    for (const spectrum kind : {spectrum::isotropic, spectrum::anisotropic}) {
        const std::string kind_name = kind == spectrum::isotropic ? "isotropic" : "anisotropic";
        std::vector<std::string> header{"V (" + kind_name + ")"};
        for (const std::size_t d : widths) header.push_back("d=" + std::to_string(d) + " PCA"), header.push_back("d=" + std::to_string(d) + " random");
        text_table table(header);
        report::line_plot plot({.title = "Copy accuracy of one head, " + kind_name + " embeddings (D = 768)",
                                .x_label = "vocabulary size V", .y_label = "tokens copied (fraction)",
                                .x_scale = report::scale_kind::log10});
        std::vector<std::vector<double>> curves(2 * widths.size());
        for (const std::size_t v : vocabularies) {
            const auto moment = second_moment(kind, v, 5);
            std::vector<std::string> row{std::to_string(v)};
            for (std::size_t w = 0; w < widths.size(); ++w) {
                const auto pca = measure_copying(kind, v, principal_basis(moment, widths[w]), 5);
                const auto rnd = measure_copying(kind, v, random_basis(widths[w], 9), 5);
                for (const auto& [k, a] : {std::pair{0, pca}, std::pair{1, rnd}}) {
                    curves[2 * w + k].push_back(a.accuracy);
                    row.push_back(a.standard_error > 0 ? format("%.3f +- %.3f", a.accuracy, a.standard_error) : format("%.3f", a.accuracy));
                    auto& j = result.numbers["copy_accuracy"][kind_name][std::to_string(v)][std::to_string(widths[w])][k ? "random" : "pca"];
                    j["accuracy"] = a.accuracy;
                    j["standard_error"] = a.standard_error;
                    j["tokens_tested"] = a.tested;
                }
            }
            table.add_row(row);
        }
        for (std::size_t w = 0; w < widths.size(); ++w) {
            plot.add_series("d = " + std::to_string(widths[w]) + ", PCA", v_axis, curves[2 * w], {.markers = true});
            plot.add_series("d = " + std::to_string(widths[w]) + ", random", v_axis, curves[2 * w + 1], {.markers = true});
        }
        result.tables.push_back(table);
        result.add_figure(plot, settings.out_dir, "R14_copy_accuracy_" + kind_name + ".png");
        result.paragraphs.push_back(format(
            "%s embeddings, V = %zu: one head of width 16 / 64 / 128 copies %.3f / %.3f / %.3f of the tokens with the PCA "
            "projection and %.3f / %.3f / %.3f with a random subspace.",
            kind_name.c_str(), vocabularies.back(), curves[0].back(), curves[2].back(), curves[4].back(), curves[1].back(),
            curves[3].back(), curves[5].back()));
    }
    result.paragraphs.push_back(
        "R14: a copy head with head width d writes U U^T e_t (U: D x d orthonormal) and the tied unembedding reads logits "
        "e_s^T U U^T e_t. The tables give the fraction of tokens whose own logit is the largest over the whole vocabulary, "
        "for the top-d principal directions of W_E (PCA, the seed's baseline) and for a random d-dimensional subspace. "
        "For V > 4096 a sample of 2048 tokens is tested (+- one standard error), each against all V tokens.");

    // K2: distance of W_O W_V = U U^T from the identity, and the copying score of W_U W_O W_V W_E,
    // from the factors; a copy head against a random head of the same width.
    const std::size_t v_k2 = full ? 4096 : 512;
    const auto moment = second_moment(spectrum::anisotropic, v_k2, 5);
    text_table k2({"head (d = 64)", "||W_O W_V - I||_F", "floor sqrt(D - d)", "ratio", "copying score"});
    std::mt19937_64 gen(21);
    std::normal_distribution<double> normal(0.0, 1.0 / std::sqrt(double(residual_width)));
    tensor2<double> w_o_random = tensor2<double>::from_shape({residual_width, 64}), w_v_random = tensor2<double>::from_shape({64, residual_width});
    for (auto& x : w_o_random) x = normal(gen);
    for (auto& x : w_v_random) x = normal(gen);
    const auto pca = principal_basis(moment, 64);
    const tensor2<double> pca_t = xt::transpose(pca);
    const double floor = std::sqrt(double(residual_width - 64));
    const auto embedding = embedding_rows(spectrum::anisotropic, 0, v_k2, 5);  // V x D = W_E^T = W_U
    const tensor2<double> embedding_t = xt::transpose(embedding);
    for (const auto& [name, w_o, w_v] : {std::tuple{"PCA copy head", pca, pca_t}, std::tuple{"random head", w_o_random, w_v_random}}) {
        const numeric::factored_matrix<double> ov(w_o, w_v);
        // W_U W_O W_V W_E = (W_U W_O)(W_V W_E): V x d times d x V, never V x V.
        const numeric::factored_matrix<double> full_circuit(numeric::product(embedding, w_o), numeric::product(w_v, embedding_t));
        const auto eig = full_circuit.eigenvalues();
        double real_sum = 0, abs_sum = 0;
        for (const auto& l : eig) real_sum += l.real(), abs_sum += std::abs(l);
        const double distance = ov.distance_from_identity();
        k2.add_row({name, format("%.4f", distance), format("%.4f", floor), format("%.4f", distance / floor), format("%.4f", real_sum / abs_sum)});
        result.numbers["K2"][name] = {{"distance_from_identity", distance}, {"floor", floor}, {"copying_score", real_sum / abs_sum}};
        // Validation: the factored distance against the dense 768 x 768 product.
        const auto dense = ov.dense();
        double squared = 0;
        for (std::size_t i = 0; i < residual_width; ++i)
            for (std::size_t j = 0; j < residual_width; ++j) squared += std::pow(dense(i, j) - (i == j ? 1.0 : 0.0), 2);
        result.check(std::abs(std::sqrt(squared) - distance) < 1e-9 * floor,
                     std::string("validation, K2: factored and dense ||W_O W_V - I||_F agree for the ") + name);
        result.check(distance >= floor * (1 - 1e-12), std::string("K2: ||W_O W_V - I||_F >= sqrt(D - d) for the ") + name);
        if (std::string(name) == "PCA copy head")
            result.check(std::abs(distance - floor) < 1e-9 * floor, "validation, K2: an orthogonal projection meets the floor sqrt(D - d)");
    }
    result.tables.push_back(k2);
    result.paragraphs.push_back(format(
        "K2 (anisotropic embeddings, V = %zu, d = 64): a rank-d OV circuit is at least sqrt(D - d) = %.2f from the identity; "
        "the PCA copy head is an orthogonal projection and meets the floor exactly. The copying score of W_U W_O W_V W_E "
        "comes from the d x d cyclic product of its factors (W_U = W_E^T).", v_k2, floor));
    result.write_json(settings.out_dir, "R14_K2_copy_head");
    return result;
}

} // namespace qkov::experiments
