// A product in float32 whose sums over the inner dimension run in float32 over float32_run terms
// at a time and add those runs in float64: the float32 path of the scan's bulk products, whose
// rounding bound (product_precision.hpp) then grows with 256, not with the inner dimension. A
// computation (BLAS), apart from the precision's names and bounds, which result headers include.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "qkov/numeric/avx2_dispatch.hpp"
#include "qkov/scan/product_precision.hpp"
#include "qkov/scan/thin_qr.hpp"

namespace qkov::scan {

namespace detail {
/// out[j] += run[j] for j < n, the float32 run widened to float64.
[[gnu::always_inline]] inline void add_run_here(std::size_t n, const float* __restrict run, double* __restrict out)
{
    for (std::size_t j = 0; j < n; ++j) out[j] += run[j];
}
#ifdef QKOV_AVX2_DISPATCH
[[gnu::target("avx2")]] inline void add_run_avx2(std::size_t n, const float* __restrict run, double* __restrict out)
{
    add_run_here(n, run, out);
}
#endif
/// The same sums with AVX2 where the processor has it (avx2_dispatch.hpp).
inline void add_run(std::size_t n, const float* run, double* out)
{
#ifdef QKOV_AVX2_DISPATCH
    if (numeric::processor_has_avx2()) return add_run_avx2(n, run, out);
#endif
    add_run_here(n, run, out);
}
} // namespace detail

/// out (m x n, rows ldo apart, float64) = a (m x K) b (K x n), both float32 row-major with rows lda
/// and ldb apart: a float32 product per run of float32_run terms of K, the runs added in float64.
inline void product_in_float32_runs(std::size_t m, std::size_t n, std::size_t K, const float* a, std::size_t lda, const float* b, std::size_t ldb,
                                    double* out, std::size_t ldo)
{
    for (std::size_t i = 0; i < m; ++i) std::fill_n(out + i * ldo, n, 0.0);
    std::vector<float> run(m * n);
    for (std::size_t k0 = 0; k0 < K; k0 += float32_run) {
        const std::size_t k = std::min(float32_run, K - k0);
        multiply_into(m, n, k, a + k0, lda, false, b + k0 * ldb, ldb, false, run.data(), n);
        for (std::size_t i = 0; i < m; ++i) detail::add_run(n, run.data() + i * n, out + i * ldo);
    }
}

} // namespace qkov::scan
