// The thin QR of a head's tall factors and the BLAS product the scan's headers share.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <xtensor-blas/xlinalg.hpp>

#include "qkov/model/head_weights.hpp"

namespace qkov::scan {

using model::matrix;
using model::vector;

/// The thin QR of a tall D x d matrix: q (D x d, orthonormal columns), r (d x d, upper triangular).
struct thin_qr {
    matrix q, r;
};

namespace detail {

/// geqrf then (with_q) orgqr: `a` holds the D x d matrix column-major (column j at a + j D) and
/// is overwritten. The workspaces are queried as xt::linalg::qr queries them, so the factors are
/// the same to the bit, without xtensor's generic copies in and out of column-major arrays.
inline thin_qr lapack_qr(std::vector<double>& a, std::size_t D, std::size_t d, bool with_q)
{
    using index = xt::blas_index_t;
    const std::size_t k = std::min(D, d);
    const auto m = static_cast<index>(D), n = static_cast<index>(d), kk = static_cast<index>(k), lda = std::max<index>(1, m);
    std::vector<double> tau(std::max<std::size_t>(1, k)), work(1);
    const auto run = [&](auto&& call, const char* what) {
        if (call(-1) != 0) throw std::runtime_error(std::string("qkov: LAPACK ") + what + " workspace query failed");
        work.resize(std::max<std::size_t>(1, static_cast<std::size_t>(work[0])));
        if (const int info = call(static_cast<index>(work.size())); info != 0)
            throw std::runtime_error(std::string("qkov: LAPACK ") + what + " returned info = " + std::to_string(info));
    };
    run([&](index lwork) { return cxxlapack::geqrf<index>(m, n, a.data(), lda, tau.data(), work.data(), lwork); }, "dgeqrf");
    thin_qr f;
    f.r = xt::zeros<double>({k, d});
    for (std::size_t j = 0; j < d; ++j)
        for (std::size_t i = 0; i <= j && i < k; ++i) f.r(i, j) = a[j * D + i];
    if (!with_q) return f;
    run([&](index lwork) { return cxxlapack::orgqr<index>(m, kk, kk, a.data(), lda, tau.data(), work.data(), lwork); }, "dorgqr");
    f.q = xt::empty<double>({D, k});
    for (std::size_t i = 0; i < D; ++i)
        for (std::size_t j = 0; j < k; ++j) f.q(i, j) = a[j * D + i];
    return f;
}

inline std::vector<double> column_major_copy(const matrix& m)
{
    const std::size_t rows = m.shape()[0], cols = m.shape()[1];
    std::vector<double> a(rows * cols);
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) a[j * rows + i] = m(i, j);
    return a;
}

} // namespace detail

/// The thin QR of a tall D x d matrix.
inline thin_qr factor(const matrix& tall)
{
    auto a = detail::column_major_copy(tall);
    return detail::lapack_qr(a, tall.shape()[0], tall.shape()[1], true);
}

/// The thin QR of the transpose of a wide d x D matrix (a head's W_q, W_k, W_v): its row-major
/// storage is already the column-major storage of the transpose, so no transposed copy is formed.
inline thin_qr factor_transpose(const matrix& wide)
{
    std::vector<double> a(wide.begin(), wide.end());
    return detail::lapack_qr(a, wide.shape()[1], wide.shape()[0], true);
}

/// R alone of the thin QR (d x d): Q is never formed, which costs about as much as the
/// factorisation itself.
inline matrix r_factor(const matrix& tall)
{
    auto a = detail::column_major_copy(tall);
    return detail::lapack_qr(a, tall.shape()[0], tall.shape()[1], false).r;
}

/// R alone of the thin QR of the transpose of a wide d x D matrix: the R factor_transpose gives,
/// to the bit (the same geqrf), without forming Q.
inline matrix r_factor_transpose(const matrix& wide)
{
    std::vector<double> a(wide.begin(), wide.end());
    return detail::lapack_qr(a, wide.shape()[1], wide.shape()[0], false).r;
}

/// C = op(A) op(B) + beta C through BLAS on row-major storage read in place, for blocks inside
/// larger matrices: C is m x n with rows ldc apart; op(A) is m x k and op(B) k x n, each stored with
/// rows lda (ldb) apart, transposed in place when asked. beta = 1 accumulates (a sum of products
/// over blocks of rows).
/// Generic over the scalar: float32 products (token_copying.hpp) take the same call.
template <class T>
void multiply_into(std::size_t m, std::size_t n, std::size_t k, const T* a, std::size_t lda, bool transpose_a, const T* b, std::size_t ldb,
                   bool transpose_b, T* c, std::size_t ldc, T beta = T(0))
{
    using index = xt::blas_index_t;
    const auto op = [](bool t) { return t ? cxxblas::Transpose::Trans : cxxblas::Transpose::NoTrans; };
    cxxblas::gemm<index>(cxxblas::StorageOrder::RowMajor, op(transpose_a), op(transpose_b), static_cast<index>(m), static_cast<index>(n),
                         static_cast<index>(k), T(1), a, static_cast<index>(lda), b, static_cast<index>(ldb), beta, c, static_cast<index>(ldc));
}

/// op(a) op(b) through BLAS, with either operand transposed in place.
inline matrix multiply(const matrix& a, const matrix& b, bool transpose_a = false, bool transpose_b = false)
{
    matrix c = xt::empty<double>({transpose_a ? a.shape()[1] : a.shape()[0], transpose_b ? b.shape()[0] : b.shape()[1]});
    xt::blas::gemm(a, b, c, transpose_a, transpose_b);
    return c;
}

} // namespace qkov::scan
