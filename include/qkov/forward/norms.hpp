// The normalisation layers of the decoder stacks, row by row (one token per row), in place.
//
//   LayerNorm  (x - mean) / sqrt(var + eps) * w + b, var the biased variance (GPT-2, GPT-NeoX);
//   RMSNorm    x / sqrt(mean(x^2) + eps) * w (Llama; llama2.c's rmsnorm is the same formula).
// The sums run in double whatever T is, so a float32 pass does not lose the mean of a wide row.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "qkov/io/model_config.hpp"
#include "qkov/numeric/blas_products.hpp"

namespace qkov::forward {

template <class T>
struct norm_params {
    io::norm_kind kind = io::norm_kind::rms_norm;
    std::vector<T> weight, bias;  ///< bias empty for RMSNorm, or a LayerNorm without one
    double eps = 1e-5;
};

/// Rows x[0 .. n) (each D wide, contiguous) normalised into out (the same layout; may be any
/// contiguous n x D storage, so a caller holding another container needs no copy).
template <class T>
void normalize_rows(const T* x, T* out, std::size_t n, std::size_t D, const norm_params<T>& p)
{
    for (std::size_t t = 0; t < n; ++t) {
        const T* row = x + t * D;
        T* o = out + t * D;
        double mean = 0;
        if (p.kind == io::norm_kind::layer_norm) {
            for (std::size_t j = 0; j < D; ++j) mean += row[j];
            mean /= static_cast<double>(D);
        }
        double square = 0;
        for (std::size_t j = 0; j < D; ++j) square += (row[j] - mean) * (row[j] - mean);
        const double inverse = 1 / std::sqrt(square / static_cast<double>(D) + p.eps);
        for (std::size_t j = 0; j < D; ++j) {
            const double v = (row[j] - mean) * inverse * p.weight[j];
            o[j] = static_cast<T>(p.bias.empty() ? v : v + p.bias[j]);
        }
    }
}

/// Returns the normalised copy of x (n x D).
template <class T>
numeric::tensor2<T> normalized(const numeric::tensor2<T>& x, const norm_params<T>& p)
{
    const std::size_t n = x.shape()[0], D = x.shape()[1];
    numeric::tensor2<T> out = numeric::tensor2<T>::from_shape({n, D});
    normalize_rows(x.data(), out.data(), n, D, p);
    return out;
}

/// The mean over the D rows of each column of a D x k map that writes into the residual (a head's
/// W_o). A LayerNorm subtracts from its input the mean over the D dimensions, which for the head's
/// part W_o z is z's product with these means: the centred map C W_o is W_o with them taken from
/// its columns. Summed in double down the rows in order, whatever the map's scalar, so the
/// decoder's maps into logits and the scan's per-token copying centre alike.
template <class M>
std::vector<double> written_column_means(const M& w)
{
    const std::size_t D = w.shape()[0], k = w.shape()[1];
    std::vector<double> mean(k, 0.0);
    for (std::size_t r = 0; r < D; ++r)
        for (std::size_t i = 0; i < k; ++i) mean[i] += static_cast<double>(w(r, i));
    for (auto& m : mean) m /= static_cast<double>(D);
    return mean;
}

} // namespace qkov::forward
