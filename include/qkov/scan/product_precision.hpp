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
// through the products (token_copying.hpp), which covers both.
#pragma once

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
    float32,  ///< the per-token copying's products in float32, undecided comparisons recomputed in float64
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

} // namespace qkov::scan
