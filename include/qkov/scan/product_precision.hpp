// The precision of the scan's bulk products, and the rounding bound that lets float32 stand in
// for float64 without changing an answer.
//
// A float32 product runs at about twice the float64 rate through the same BLAS, but rounds at
// u = 2^-24 instead of 2^-53. The scan uses it where it compares: each float32 entry carries a
// bound on its distance from the float64 scan's entry, and a comparison whose margin is inside the
// bound is not decided from the float32 entry (token_copying.hpp counts it again in float64).
//
// The bound (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., section 3.1): a sum
// of n products computed in floating point in any order lies within gamma_n sum_k |a_k| |b_k| of
// the exact sum, gamma_n = n u / (1 - n u). Conditional on: the BLAS computing each entry of a
// product as such a sum (a conventional GEMM, as OpenBLAS's kernels are; no Strassen-like
// scheme) and round-to-nearest. Underflow adds an absolute error besides, per operation and per
// value converted: at most 2^-149 with gradual underflow, 2^-126 if a library built with
// -ffast-math has set flush-to-zero in the process; the scan carries 2^-125 per operation
// through the products (token_copying.hpp, composition.hpp), which covers both.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "qkov/precision/residual.hpp"

namespace qkov::scan {

enum class product_precision {
    float64,  ///< every product in float64 (the reference path)
    float32,  ///< the per-token copying's and the composition's bulk products in float32, undecided comparisons recomputed in float64
};

inline std::string_view precision_name(product_precision p) { return p == product_precision::float32 ? "float32" : "float64"; }

inline std::optional<product_precision> precision_named(std::string_view name)
{
    if (name == "float32") return product_precision::float32;
    if (name == "float64") return product_precision::float64;
    return std::nullopt;
}

/// gamma_n = n u / (1 - n u) for a floating-point type's unit roundoff u (precision/residual.hpp's).
template <class T>
double gamma_bound(std::size_t n)
{
    const double nu = static_cast<double>(n) * qkov::precision::unit_roundoff<T>();
    if (nu >= 0.5) throw std::invalid_argument("qkov: a product of depth " + std::to_string(n) + " is too long for a rounding bound in this type");
    return nu / (1 - nu);
}

/// x in float32, beyond float32's range infinite (a plain conversion would be undefined there);
/// NaN stays NaN.
inline float to_float32(double x)
{
    if (!(std::abs(x) > static_cast<double>(std::numeric_limits<float>::max()))) return static_cast<float>(x);
    return x > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
}

/// n values in float32 (to_float32 each).
inline std::vector<float> to_float32(const double* x, std::size_t n)
{
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = to_float32(x[i]);
    return out;
}

/// What float32 underflow can add absolutely per operation or converted value, with room: 2^-125
/// (2^-126 when flushed to zero, 2^-149 when gradual).
inline const double float32_underflow = std::ldexp(1.0, -125);

/// Depth of the float32 sums over a product's inner dimension: summed in float32 over runs of this
/// many terms and the runs in float64, so the rounding bound is gamma_256, not gamma_K (at K =
/// 4,096, 1.5e-5 instead of 2.4e-4 of the sum of |terms|).
inline constexpr std::size_t float32_run = 256;

/// The bound on ||P32 - P64||_F for a block of product_in_float32_runs' result (float32_runs.hpp) (m x n, inner
/// dimension K) against the same block made by one float64 product, from the Frobenius norms of
/// the block's factors: the rows of a that make it (|A|) and the columns of b (|B|).
///   ||P32 - P64||_F <= eps |A| |B| + U sqrt(K) (sqrt(n) |A| + sqrt(m) |B|) + U (2K + runs) sqrt(mn)
/// eps = gamma32_{r+2} + gamma64_{runs} (1 + gamma32_{r+2}) + gamma64_K, r = min(K, float32_run):
/// per entry, the float32 run sums (with the two conversions to float32) and the float64 sum of
/// the runs, against the exact sum; the float64 product's own distance from it; sum_k |a_ik||b_kj|
/// <= |a_i| |b_j| (Cauchy-Schwarz), and the Frobenius norm over the block. The underflow terms
/// (U = float32_underflow): converting a and b, the 2K operations of the runs and their sums.
/// Only meaningful while no entry can leave float32's range: in_range says when.
struct float32_product_bound {
    double eps = 0, root_K = 0, K = 0, runs = 0;
    explicit float32_product_bound(std::size_t K_)
    {
        const std::size_t r = std::min(K_, float32_run), n_runs = (K_ + float32_run - 1) / float32_run;
        const double g32 = gamma_bound<float>(r + 2);
        eps = (1 + 1e-9) * (g32 + gamma_bound<double>(std::max<std::size_t>(n_runs, 1)) * (1 + g32) + gamma_bound<double>(std::max<std::size_t>(K_, 1)));
        root_K = std::sqrt(static_cast<double>(K_)), K = static_cast<double>(K_), runs = static_cast<double>(n_runs);
    }
    [[nodiscard]] double operator()(double a, double b, std::size_t m, std::size_t n) const
    {
        const double U = float32_underflow, rm = std::sqrt(static_cast<double>(m)), rn = std::sqrt(static_cast<double>(n));
        return (1 + 1e-9) * (eps * a * b + U * root_K * (rn * a + rm * b) + U * (2 * K + runs) * rm * rn);
    }
    /// Whether products of factors with these Frobenius norms stay far inside float32's range (every
    /// entry and partial sum is at most |A| |B|, every factor's entry at most its norm).
    [[nodiscard]] static bool in_range(double a, double b) { return a < 1e36 && b < 1e36 && a * b < 1e36; }
};

} // namespace qkov::scan
