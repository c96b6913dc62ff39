// The eigenvalue copying score of a head (Elhage et al. 2021; claim K2), without a V x V matrix.
//
// With embedding W_E (V x D, row t embeds token t) and unembedding W_U (V x D, logits = W_U x),
// the head's full OV circuit on tokens is the V x V matrix W_U W_o W_v W_E^T (column
// convention). Its nonzero eigenvalues are those of the d x d cyclic product
//   W_v (W_E^T W_U) W_o,
// and G = W_E^T W_U is D x D, formed once per model (cost D^2 V, the scan's dominant product).
// The score is Re(sum lambda) / sum |lambda|, in [-1, 1]: 1 when every eigenvalue is positive
// real (the head copies the token it reads), -1 when every one is negative.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <optional>
#include <stdexcept>
#include <string>

#include <xtensor-blas/xlinalg.hpp>

#include "qkov/model/head_weights.hpp"
#include "qkov/numeric/parallel_blocks.hpp"
#include "qkov/scan/head_measurement.hpp"

namespace qkov::scan {

/// Columns of G per block of add_token_rows: fixed, so the blocks, and every bit of G, are the
/// same whatever the thread count (OpenBLAS's own threads split a product by their number). Each
/// block's product packs the vocabulary block of W_E again: 512 columns pack it a quarter as often
/// as 128 did (the token circuit of `LAYERS=8 bench/scan/scale.sh`: 90.0 s with 128, 71.4 s with
/// 512; docs/benchmarks.md).
inline constexpr std::size_t token_columns_per_block = 512;

/// g += E^T U for rows of W_E and W_U (the same rows of both): G = W_E^T W_U summed over blocks of
/// the vocabulary, so no reader has to hold V x D doubles. With `u` null (a tied unembedding,
/// U = E) only the upper triangle is added (a product above each diagonal block, BLAS's symmetric
/// rank-k update on it), half the FLOPs; mirror_upper finishes G once every block is in. The
/// column blocks run on the --threads workers (parallel_blocks.hpp), BLAS on each one's thread.
inline void add_token_rows(matrix& g, const matrix& e, const matrix* u)
{
    const std::size_t D = g.shape()[0];
    if (e.shape()[1] != D || (u != nullptr && u->shape() != e.shape()))
        throw std::invalid_argument("qkov: token rows of the embedding are " + std::to_string(e.shape()[0]) + " x " + std::to_string(e.shape()[1]) +
                                    (u != nullptr ? " and of the unembedding " + std::to_string(u->shape()[0]) + " x " + std::to_string(u->shape()[1]) : std::string()) +
                                    " for a token circuit of width " + std::to_string(D));
    const std::size_t rows = e.shape()[0], width = token_columns_per_block;
    numeric::for_each_block((D + width - 1) / width, [&](std::size_t block) {
        const std::size_t first = block * width, n = std::min(width, D - first);
        if (u != nullptr) return multiply_into(D, n, rows, e.data(), D, true, u->data() + first, D, false, g.data() + first, D, 1.0);
        if (first > 0) multiply_into(first, n, rows, e.data(), D, true, e.data() + first, D, false, g.data() + first, D, 1.0);
        using index = xt::blas_index_t;
        cxxblas::syrk<index>(cxxblas::StorageOrder::RowMajor, cxxblas::StorageUpLo::Upper, cxxblas::Transpose::Trans, static_cast<index>(n),
                             static_cast<index>(rows), 1.0, e.data() + first, static_cast<index>(D), 1.0, g.data() + first * D + first, static_cast<index>(D));
    });
}

/// The lower triangle of a symmetric matrix from its upper one.
inline void mirror_upper(matrix& g)
{
    for (std::size_t i = 0; i < g.shape()[0]; ++i)
        for (std::size_t j = 0; j < i; ++j) g(i, j) = g(j, i);
}

/// G = W_E^T W_U (D x D) from whole V x D matrices.
inline matrix token_circuit(const matrix& embedding, const matrix& unembedding)
{
    matrix g = xt::zeros<double>({embedding.shape()[1], embedding.shape()[1]});
    add_token_rows(g, embedding, &unembedding);
    return g;
}

/// W_E^T W_E (D x D) for a tied unembedding, from the whole V x D embedding.
inline matrix token_gram(const matrix& embedding)
{
    matrix g = xt::zeros<double>({embedding.shape()[1], embedding.shape()[1]});
    add_token_rows(g, embedding, nullptr);
    mirror_upper(g);
    return g;
}

/// Re(sum lambda) / sum |lambda| for the eigenvalues of a d x d cyclic product; nullopt when all
/// of them vanish (the head writes nothing the unembedding reads back as the token it read: no
/// score to give).
inline std::optional<double> eigenvalue_score(const matrix& cyclic)
{
    const auto lambda = xt::linalg::eigvals(cyclic);
    double real = 0, magnitude = 0;
    for (const auto& l : lambda) real += l.real(), magnitude += std::abs(l);
    if (magnitude == 0) return std::nullopt;
    return real / magnitude;
}

inline void require_head_width(const model::head_weights& h, const matrix& g)
{
    if (g.shape()[0] != h.w_v.shape()[1] || g.shape()[1] != h.w_o.shape()[0])
        throw std::invalid_argument("qkov: the token circuit W_E^T W_U is " + std::to_string(g.shape()[0]) + " x " + std::to_string(g.shape()[1]) +
                                    " but the head's width is " + std::to_string(h.w_v.shape()[1]));
}

/// G and the mean rows of W_E and W_U; token_side.hpp reads them from a model.
struct token_circuits {
    matrix g;                                  ///< W_E^T W_U (Elhage et al.'s copying score, as numpy computes it)
    vector mean_embedding, mean_unembedding;   ///< e and u, the mean rows of W_E and W_U
    std::size_t vocabulary = 0;
};

/// A head's score against G and against the centred circuit (what the copy label reads).
struct head_copying {
    std::optional<double> plain, centred;
};

/// Both scores from one D x D product.
///
/// The centred score reads G with the unembedding centred over the vocabulary:
/// W_E^T (I - 1 1^T / V) W_U = G - V e u^T. Logits are defined up to a shift shared by every token
/// (no softmax sees it), so a direction every embedding shares should not make a head look like a
/// copy head: with the centred unembedding, whatever the head writes for every token alike adds
/// nothing to the trace of the token circuit (1^T (I - 1 1^T / V) = 0). The labels use this score.
/// Its cyclic product W_v (G - V e u^T) W_o = W_v G W_o - V (W_v e)(W_o^T u)^T is a rank-one
/// correction of the d x d uncentred one, so neither a second product with a D x D matrix nor the
/// centred D x D matrix is formed.
inline head_copying copying_scores(const model::head_weights& h, const token_circuits& t)
{
    require_head_width(h, t.g);
    const matrix cyclic = multiply(multiply(h.w_v, t.g), h.w_o);
    const vector ve = xt::linalg::dot(h.w_v, t.mean_embedding), uo = xt::linalg::dot(xt::transpose(h.w_o), t.mean_unembedding);
    matrix centred = cyclic;
    const double V = static_cast<double>(t.vocabulary);
    for (std::size_t i = 0; i < centred.shape()[0]; ++i)
        for (std::size_t j = 0; j < centred.shape()[1]; ++j) centred(i, j) -= V * ve(i) * uo(j);
    return {eigenvalue_score(cyclic), eigenvalue_score(centred)};
}

} // namespace qkov::scan
