// The bridge from the fixed-size matrix<> layer (where the constructions live, generic over the
// scalar) to the run-time xtensor layer: a matrix<T, R, C> instantiated with double or float
// becomes an R x C row-major tensor with the same entries.
#pragma once

#include <cstddef>

#include "qkov/matrix/matrix.hpp"
#include "qkov/numeric/blas_products.hpp"

namespace qkov::numeric {

template <class T, std::size_t R, std::size_t C>
tensor2<T> to_tensor(const matrix<T, R, C>& m)
{
    tensor2<T> t = tensor2<T>::from_shape({R, C});
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) t(i, j) = m(i, j);
    return t;
}

} // namespace qkov::numeric
