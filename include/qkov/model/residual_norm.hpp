// The norm in front of an attention block (norm_weights in attention_model.hpp) applied to rows of
// residual vectors: LayerNorm (centre, divide by the standard deviation, scale, shift), RMSNorm
// (divide by the root mean square, scale) or Gemma's RMSNorm with weight 1 + w. The eps goes
// inside the square root, as every implementation of these families does.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include "qkov/model/attention_model.hpp"

namespace qkov::model {

/// Each row of x (n x D) through the norm; x is left as it was.
inline matrix apply_norm(const norm_weights& norm, const matrix& x)
{
    const std::size_t n = x.shape()[0], D = x.shape()[1];
    if (norm.weight.size() != D)
        throw std::invalid_argument("qkov: the norm's weight has " + std::to_string(norm.weight.size()) + " entries for residual vectors of width " +
                                    std::to_string(D));
    const bool layer_norm = norm.kind == io::norm_kind::layer_norm;
    const bool plus_one = norm.kind == io::norm_kind::rms_norm_plus_one;
    matrix out = xt::empty<double>({n, D});
    for (std::size_t t = 0; t < n; ++t) {
        double mean = 0;
        if (layer_norm) {
            for (std::size_t j = 0; j < D; ++j) mean += x(t, j);
            mean /= static_cast<double>(D);
        }
        double square = 0;
        for (std::size_t j = 0; j < D; ++j) square += (x(t, j) - mean) * (x(t, j) - mean);
        const double scale = 1.0 / std::sqrt(square / static_cast<double>(D) + norm.eps);
        for (std::size_t j = 0; j < D; ++j) {
            const double w = plus_one ? 1.0 + norm.weight(j) : norm.weight(j);
            out(t, j) = (x(t, j) - mean) * scale * w + (norm.bias.size() == D ? norm.bias(j) : 0.0);
        }
    }
    return out;
}

} // namespace qkov::model
