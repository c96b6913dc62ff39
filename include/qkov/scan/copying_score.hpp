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

/// G for a model whose embedding the caller has read, or nullopt when it lacks the unembedding.
/// A tied unembedding is the embedding itself: it is not read again.
inline std::optional<matrix> token_circuit(const model::attention_model& m, const matrix& embedding)
{
    if (m.unembedding_status() == "tied to the embedding") return multiply(embedding, embedding, true, false);
    auto u = m.unembedding();
    if (!u) return std::nullopt;
    return token_circuit(embedding, *u);
}

/// Re(sum lambda) / sum |lambda| for the eigenvalues of W_v G W_o; nullopt when all of them vanish
/// (the head writes nothing the unembedding reads back as the token it read: no score to give).
inline std::optional<double> copying_score(const model::head_weights& h, const matrix& g)
{
    if (g.shape()[0] != h.w_v.shape()[1] || g.shape()[1] != h.w_o.shape()[0])
        throw std::invalid_argument("qkov: the token circuit W_E^T W_U is " + std::to_string(g.shape()[0]) + " x " + std::to_string(g.shape()[1]) +
                                    " but the head's width is " + std::to_string(h.w_v.shape()[1]));
    const matrix cyclic = multiply(multiply(h.w_v, g), h.w_o);
    const auto lambda = xt::linalg::eigvals(cyclic);
    double real = 0, magnitude = 0;
    for (const auto& l : lambda) real += l.real(), magnitude += std::abs(l);
    if (magnitude == 0) return std::nullopt;
    return real / magnitude;
}

} // namespace qkov::scan
