// The SVD of a small dense matrix (a head's d x d core), checked by its reconstruction residual,
// with a second LAPACK driver when the first fails.
//
// LAPACK's divide-and-conquer driver dgesdd is fast but has been seen to return info > 0 (no
// convergence) and, worse, to return info = 0 with wrong vectors on a few real heads. So every
// decomposition is checked: ||U S V^T - A||_F / ||A||_F must stay below a tolerance, else the
// QR-iteration driver dgesvd is run instead, and the result names the driver and why.
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

// xlinalg.hpp before anything else of xtensor-blas: it sets up the CBLAS declarations xlapack.hpp needs.
#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xadapt.hpp>
#include <xtensor/xtensor.hpp>

#include "qkov/model/head_weights.hpp"

namespace qkov::scan {

using model::matrix;
using model::vector;

enum class svd_driver { gesdd, gesvd };

struct checked_svd_result {
    matrix u;                ///< m x k, k = min(m, n)
    vector s;                ///< k singular values, descending
    matrix vt;               ///< k x n
    double residual = 0;     ///< ||U S V^T - A||_F / ||A||_F (0 for A = 0)
    std::string driver;      ///< "gesdd", or "gesvd (gesdd ...: why)" when the fallback ran
};

/// The Frobenius norm, accumulated in long double so a sum of many squares loses nothing.
template <class E>
double frobenius(const E& m)
{
    long double sum = 0;
    for (const double x : m) sum += static_cast<long double>(x) * x;
    return static_cast<double>(std::sqrt(sum));
}

namespace detail {

using column_major = xt::xtensor<double, 2, xt::layout_type::column_major>;

/// ||U S V^T - A||_F / ||A||_F.
inline double svd_residual(const matrix& a, const matrix& u, const vector& s, const matrix& vt)
{
    const double norm_a = frobenius(a);
    matrix us = u;
    for (std::size_t i = 0; i < us.shape()[0]; ++i)
        for (std::size_t j = 0; j < us.shape()[1]; ++j) us(i, j) *= s(j);
    const matrix back = xt::linalg::dot(us, vt);
    const double diff = frobenius(back - a);
    return norm_a == 0 ? diff : diff / norm_a;
}

/// One LAPACK driver's thin SVD (jobz / jobu = 'S'); info as LAPACK returns it.
inline int run_driver(const matrix& a, svd_driver driver, matrix& u, vector& s, matrix& vt)
{
    column_major m = a;
    const auto rows = static_cast<xt::blas_index_t>(a.shape()[0]), cols = static_cast<xt::blas_index_t>(a.shape()[1]);
    if (driver == svd_driver::gesdd) {
        auto [info, uu, ss, vv] = xt::lapack::gesdd(m, 'S');
        u = uu, s = ss, vt = vv;
        return info;
    }
    const auto k = std::min(rows, cols);
    column_major uu = xt::empty<double>({static_cast<std::size_t>(rows), static_cast<std::size_t>(k)});
    column_major vv = xt::empty<double>({static_cast<std::size_t>(k), static_cast<std::size_t>(cols)});
    xt::xtensor<double, 1> ss = xt::empty<double>({static_cast<std::size_t>(k)});
    double query = 0;
    int info = cxxlapack::gesvd<xt::blas_index_t>('S', 'S', rows, cols, m.data(), std::max<xt::blas_index_t>(1, rows), ss.data(), uu.data(),
                                                  std::max<xt::blas_index_t>(1, rows), vv.data(), std::max<xt::blas_index_t>(1, k), &query, -1);
    if (info != 0) return info;
    std::vector<double> work(static_cast<std::size_t>(query));
    info = cxxlapack::gesvd<xt::blas_index_t>('S', 'S', rows, cols, m.data(), std::max<xt::blas_index_t>(1, rows), ss.data(), uu.data(),
                                              std::max<xt::blas_index_t>(1, rows), vv.data(), std::max<xt::blas_index_t>(1, k), work.data(),
                                              static_cast<xt::blas_index_t>(work.size()));
    u = uu, s = ss, vt = vv;
    return info;
}

inline const char* driver_name(svd_driver d) { return d == svd_driver::gesdd ? "gesdd" : "gesvd"; }

} // namespace detail

/// One driver, no fallback: throws std::runtime_error naming the driver when it does not converge.
inline checked_svd_result lapack_svd(const matrix& a, svd_driver driver)
{
    if (a.shape()[0] == 0 || a.shape()[1] == 0) throw std::invalid_argument("qkov: the SVD of an empty matrix");
    for (const double x : a)
        if (!std::isfinite(x)) throw std::invalid_argument("qkov: the SVD of a matrix holding NaN or an infinity");
    checked_svd_result r;
    const int info = detail::run_driver(a, driver, r.u, r.s, r.vt);
    if (info != 0)
        throw std::runtime_error(std::string("qkov: LAPACK d") + detail::driver_name(driver) + " returned info = " + std::to_string(info) +
                                 (info > 0 ? " (did not converge)" : " (bad argument)"));
    r.residual = detail::svd_residual(a, r.u, r.s, r.vt);
    r.driver = detail::driver_name(driver);
    return r;
}

/// Residual above which a decomposition is rejected: a backward-stable SVD of a d x d matrix is
/// accurate to a small multiple of d * eps (about 1e-14 for d = 64); 1e-10 leaves four orders of
/// magnitude for that and still catches a mis-converged result, which is wrong at O(1).
inline constexpr double svd_residual_tolerance = 1e-10;

/// gesdd, checked; gesvd when gesdd fails or its residual exceeds `tolerance`. Throws only when
/// both fail, naming both.
inline checked_svd_result checked_svd(const matrix& a, double tolerance = svd_residual_tolerance)
{
    std::string why;
    try {
        auto r = lapack_svd(a, svd_driver::gesdd);
        if (r.residual <= tolerance) return r;
        why = "gesdd residual " + std::to_string(r.residual) + " above " + std::to_string(tolerance);
    } catch (const std::runtime_error& e) {
        why = e.what();
        if (why.starts_with("qkov: ")) why = why.substr(6);
    }
    auto r = lapack_svd(a, svd_driver::gesvd);
    if (r.residual > tolerance && tolerance >= 0)
        throw std::runtime_error("qkov: SVD failed with both LAPACK drivers: " + why + "; gesvd residual " + std::to_string(r.residual));
    r.driver = "gesvd (" + why + ")";
    return r;
}

/// Singular values of many n x n matrices, one at a time: dgesdd without vectors (jobz = 'N'),
/// its workspace sized once, gesvd when it does not converge. A row-major block is read as the
/// column-major storage of its transpose, which has the same singular values, so no reordering.
class square_singular_values {
public:
    explicit square_singular_values(std::size_t n) : n_(n), a_(n * n), iwork_(8 * n)
    {
        const auto m = static_cast<xt::blas_index_t>(n_);
        double query = 0, unused = 0;
        s_.resize(n_);
        const int info = cxxlapack::gesdd<xt::blas_index_t>('N', m, m, a_.data(), std::max<xt::blas_index_t>(1, m), s_.data(), &unused, 1, &unused, 1,
                                                            &query, -1, iwork_.data());
        if (info != 0) throw std::runtime_error("qkov: LAPACK dgesdd workspace query returned info = " + std::to_string(info));
        work_.resize(static_cast<std::size_t>(query));
    }

    /// The n singular values, descending, of the n x n block at `row_major` whose rows start
    /// `row_stride` doubles apart (n for a contiguous block).
    vector operator()(const double* row_major, std::size_t row_stride)
    {
        for (std::size_t i = 0; i < n_; ++i) std::copy(row_major + i * row_stride, row_major + i * row_stride + n_, a_.begin() + static_cast<std::ptrdiff_t>(i * n_));
        const auto m = static_cast<xt::blas_index_t>(n_);
        double unused = 0;
        const int info = cxxlapack::gesdd<xt::blas_index_t>('N', m, m, a_.data(), std::max<xt::blas_index_t>(1, m), s_.data(), &unused, 1, &unused, 1,
                                                            work_.data(), static_cast<xt::blas_index_t>(work_.size()), iwork_.data());
        if (info == 0) return xt::adapt(s_, {n_});
        matrix a = xt::empty<double>({n_, n_});
        for (std::size_t i = 0; i < n_; ++i)
            for (std::size_t j = 0; j < n_; ++j) a(i, j) = row_major[i * row_stride + j];
        return lapack_svd(a, svd_driver::gesvd).s;
    }

private:
    std::size_t n_;
    std::vector<double> a_, s_, work_;
    std::vector<xt::blas_index_t> iwork_;
};

} // namespace qkov::scan
