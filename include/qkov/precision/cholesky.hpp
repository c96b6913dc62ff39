// Cholesky factorization G = L L^T of a symmetric positive definite matrix in floating point
// (double, Boost.Multiprecision), and solves with it. The exact layer's inverse
// (matrix/elimination.hpp) needs exact scalars; with rounding, a positive definite Gram matrix
// is factored stably without pivoting, which is why the high-precision pseudo-inverse goes
// through G = W^T W and this factorization.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>

#include "qkov/matrix/matrix.hpp"

namespace qkov::precision {

template <class T, std::size_t N>
class cholesky {
public:
    /// Throws std::domain_error when a pivot is not positive: G is not positive definite, or so
    /// ill-conditioned that rounding made it look indefinite.
    explicit cholesky(const matrix<T, N, N>& g)
    {
        using std::sqrt;
        for (std::size_t j = 0; j < N; ++j) {
            T pivot = g(j, j);
            for (std::size_t k = 0; k < j; ++k) pivot -= l_(j, k) * l_(j, k);
            // A pivot within rounding of zero (relative to the diagonal entry it came from) means
            // the matrix is singular to working precision: refuse rather than divide by noise.
            const T floor = T(8 * N) * std::numeric_limits<T>::epsilon() * g(j, j);
            if (!(pivot > floor))
                throw std::domain_error("qkov: cholesky: the Gram matrix is not positive definite at pivot " +
                                        std::to_string(j) + " (a rank-deficient factor, or singular to working precision)");
            l_(j, j) = sqrt(pivot);
            for (std::size_t i = j + 1; i < N; ++i) {
                T s = g(i, j);
                for (std::size_t k = 0; k < j; ++k) s -= l_(i, k) * l_(j, k);
                l_(i, j) = s / l_(j, j);
            }
        }
    }

    /// B := G^-1 B, column by column (forward then backward substitution).
    template <std::size_t K>
    void solve_in_place(matrix<T, N, K>& b) const
    {
        for (std::size_t c = 0; c < K; ++c) {
            for (std::size_t i = 0; i < N; ++i) {
                T s = b(i, c);
                for (std::size_t k = 0; k < i; ++k) s -= l_(i, k) * b(k, c);
                b(i, c) = s / l_(i, i);
            }
            for (std::size_t i = N; i-- > 0;) {
                T s = b(i, c);
                for (std::size_t k = i + 1; k < N; ++k) s -= l_(k, i) * b(k, c);
                b(i, c) = s / l_(i, i);
            }
        }
    }

private:
    matrix<T, N, N> l_;
};

} // namespace qkov::precision
