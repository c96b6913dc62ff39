// The thin QR of a head's tall factors and the BLAS product the scan's headers share.
#pragma once

#include <xtensor-blas/xlinalg.hpp>

#include "qkov/model/head_weights.hpp"

namespace qkov::scan {

using model::matrix;
using model::vector;

/// The thin QR of a tall D x d matrix: q (D x d, orthonormal columns), r (d x d, upper triangular).
struct thin_qr {
    matrix q, r;
};

inline thin_qr factor(const matrix& tall)
{
    auto [q, r] = xt::linalg::qr(tall, xt::linalg::qrmode::reduced);
    return {matrix(q), matrix(r)};
}

/// op(a) op(b) through BLAS, with either operand transposed in place.
inline matrix multiply(const matrix& a, const matrix& b, bool transpose_a = false, bool transpose_b = false)
{
    matrix c = xt::empty<double>({transpose_a ? a.shape()[1] : a.shape()[0], transpose_b ? b.shape()[0] : b.shape()[1]});
    xt::blas::gemm(a, b, c, transpose_a, transpose_b);
    return c;
}

} // namespace qkov::scan
