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

#include <cmath>
#include <complex>
#include <optional>

#include <xtensor-blas/xlinalg.hpp>

#include "qkov/model/attention_model.hpp"
#include "qkov/scan/head_metrics.hpp"

namespace qkov::scan {

/// G = W_E^T W_U (D x D), one BLAS call over the stored V x D matrices (no transposed copy).
inline matrix token_circuit(const matrix& embedding, const matrix& unembedding)
{
    if (embedding.shape() != unembedding.shape())
        throw std::invalid_argument("qkov: the embedding is " + std::to_string(embedding.shape()[0]) + " x " + std::to_string(embedding.shape()[1]) +
                                    " but the unembedding " + std::to_string(unembedding.shape()[0]) + " x " + std::to_string(unembedding.shape()[1]));
    return multiply(embedding, unembedding, true, false);
}


/// W_E^T W_E (D x D) for a tied unembedding: BLAS's symmetric rank-k update computes one triangle
/// (half the FLOPs of the general product, V D^2 instead of 2 V D^2), mirrored into the other.
inline matrix token_gram(const matrix& embedding)
{
    const std::size_t V = embedding.shape()[0], D = embedding.shape()[1];
    matrix g = xt::zeros<double>({D, D});
    using index = xt::blas_index_t;
    cxxblas::syrk<index>(cxxblas::StorageOrder::RowMajor, cxxblas::StorageUpLo::Upper, cxxblas::Transpose::Trans, static_cast<index>(D),
                         static_cast<index>(V), 1.0, embedding.data(), static_cast<index>(D), 0.0, g.data(), static_cast<index>(D));
    for (std::size_t i = 0; i < D; ++i)
        for (std::size_t j = 0; j < i; ++j) g(i, j) = g(j, i);
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

/// G for a model whose embedding the caller has read, or nullopt when it lacks the unembedding.
/// A tied unembedding is the embedding itself: it is not read again.
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

inline std::optional<token_circuits> token_circuit(const model::attention_model& m, const matrix& embedding)
{
    const vector mean_embedding = xt::mean(embedding, {0});
    const std::size_t V = embedding.shape()[0];
    if (m.unembedding_status() == "tied to the embedding") return token_circuits{token_gram(embedding), mean_embedding, mean_embedding, V};
    auto u = m.unembedding();
    if (!u) return std::nullopt;
    return token_circuits{token_circuit(embedding, *u), mean_embedding, xt::mean(*u, {0}), V};
}

} // namespace qkov::scan
