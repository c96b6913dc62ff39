// A low-rank matrix kept as the product of two thin factors, M = A B (A: m x r, B: r x n, r small),
// the form of a head's circuits: W_Q^T W_K, W_O W_V, and W_U W_O W_V W_E. Everything below is
// answered from the factors; the m x n product is never formed (dense() exists for tests).
//
//   singular values   A = Q_a R_a, B^T = Q_b R_b (thin QR), so A B = Q_a (R_a R_b^T) Q_b^T with Q_a, Q_b
//                     orthonormal columns: the singular values of A B are those of the r x r core R_a R_b^T.
//   eigenvalues       (m = n) the nonzero eigenvalues of A B are those of the r x r cyclic product B A
//                     (with multiplicity); B A may add zeros, never other values.
//   Frobenius norm    ||A B||_F^2 = trace(A^T A B B^T) = sum_ij (A^T A)_ij (B B^T)_ij, two r x r Gram matrices.
//   distance from I   ||A B - I||_F^2 = ||A B||_F^2 - 2 trace(B A) + n (m = n).
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <string>

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xtensor.hpp>

#include "qkov/numeric/blas_products.hpp"

namespace qkov::numeric {

template <class T>
class factored_matrix {
public:
    factored_matrix(tensor2<T> left, tensor2<T> right) : a_(std::move(left)), b_(std::move(right))
    {
        require_shape(b_.shape()[0] == a_.shape()[1], "the right factor B of A B", b_,
                      "its rows must equal the columns of the left factor A " + shape_text(a_));
        require_shape(a_.shape()[1] > 0, "the left factor A of A B", a_, "it needs at least one column (rank r >= 1)");
        // A NaN or infinity gives a norm of 0 and garbage singular values, never an error: refuse it here.
        require_finite(a_, "the left factor A");
        require_finite(b_, "the right factor B");
    }

    [[nodiscard]] std::size_t rows() const { return a_.shape()[0]; }
    [[nodiscard]] std::size_t cols() const { return b_.shape()[1]; }
    [[nodiscard]] std::size_t inner() const { return a_.shape()[1]; }
    [[nodiscard]] const tensor2<T>& left() const { return a_; }
    [[nodiscard]] const tensor2<T>& right() const { return b_; }

    /// The min(m, n, r) largest singular values of A B, in descending order (the rest are 0).
    [[nodiscard]] xt::xtensor<T, 1> singular_values() const
    {
        const tensor2<T> r_a = triangular_factor(a_);
        const tensor2<T> b_t = xt::transpose(b_);
        const tensor2<T> r_b = triangular_factor(b_t);
        const tensor2<T> core = product(r_a, r_b, transposed::yes);
        const auto [u, s, vt] = xt::linalg::svd(core, false, false);
        xt::xtensor<T, 1> values = s;
        std::sort(values.begin(), values.end(), [](T x, T y) { return x > y; });
        return values;
    }

    /// The eigenvalues of the r x r cyclic product B A: the nonzero eigenvalues of A B (square only),
    /// plus r - rank zeros.
    [[nodiscard]] xt::xtensor<std::complex<T>, 1> eigenvalues() const
    {
        require_square("eigenvalues");
        return xt::linalg::eigvals(cyclic_product());
    }

    /// B A (r x r).
    [[nodiscard]] tensor2<T> cyclic_product() const { return product(b_, a_); }

    [[nodiscard]] T frobenius_norm() const { return std::sqrt(std::max(T(0), squared_frobenius())); }

    /// ||A B - I||_F (square only).
    [[nodiscard]] T distance_from_identity() const
    {
        require_square("distance_from_identity");
        const tensor2<T> ba = cyclic_product();
        T trace(0);
        for (std::size_t i = 0; i < inner(); ++i) trace += ba(i, i);
        return std::sqrt(std::max(T(0), squared_frobenius() - T(2) * trace + T(rows())));
    }

    /// The m x n product, for tests and small matrices only.
    [[nodiscard]] tensor2<T> dense() const { return product(a_, b_); }

private:
    static void require_finite(const tensor2<T>& factor, const char* what)
    {
        const std::size_t cols = factor.shape()[1];
        for (std::size_t k = 0; k < factor.size(); ++k)
            if (!std::isfinite(factor.data()[k]))
                throw std::invalid_argument(std::string("qkov: ") + what + " of A B holds " + (std::isnan(factor.data()[k]) ? "NaN" : "an infinity") +
                                            " at (" + std::to_string(k / cols) + ", " + std::to_string(k % cols) + ")");
    }

    void require_square(const char* what) const
    {
        if (rows() != cols())
            throw std::invalid_argument(std::string("qkov: factored_matrix::") + what + " needs a square product; A B is " +
                                        std::to_string(rows()) + " x " + std::to_string(cols()));
    }

    T squared_frobenius() const
    {
        const tensor2<T> a_t = xt::transpose(a_);
        const tensor2<T> gram_a = product(a_t, a_);                          // r x r
        const tensor2<T> gram_b = product(b_, b_, transposed::yes);          // r x r
        T sum(0);
        for (std::size_t k = 0; k < gram_a.size(); ++k) sum += gram_a.data()[k] * gram_b.data()[k];
        return sum;
    }

    /// R of the thin QR of a tall m x r matrix (min(m, r) x r, upper triangular).
    static tensor2<T> triangular_factor(const tensor2<T>& tall)
    {
        auto [q, r] = xt::linalg::qr(tall, xt::linalg::qrmode::r);
        return r;
    }

    tensor2<T> a_;
    tensor2<T> b_;
};

} // namespace qkov::numeric
