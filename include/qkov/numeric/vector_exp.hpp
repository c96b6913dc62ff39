// exp over contiguous arrays, written so that the compiler vectorizes it (SSE2 is enough).
//
// std::exp is a library call per element, which no loop around it can vectorize without
// -ffast-math; the softmax of an L x L pattern makes L^2 / 2 of those calls. This kernel has no
// branches and no calls, only + - * on T, integer shifts and adds on the bit patterns and selects,
// so g++ -O2/-O3 turns the loops below into packed SSE2 code (2 doubles or 4 floats per
// instruction) without any -march flag. On x86-64 processors with AVX2 (checked at run time) the
// array loop runs on 32-byte vectors instead: the same operations lane by lane, so the same
// results, twice the lanes per instruction (FMA is not enabled, so nothing is contracted).
//
// Method: exp(x) = 2^n exp(r) with n = round(x / ln 2) and r = x - n ln 2 in [-ln2/2, ln2/2];
//   - n is rounded by adding 1.5 * 2^(mantissa bits) (the sum's low bits are n), no float-to-int
//     conversion (which would be undefined for NaN and out-of-range x);
//   - r uses ln 2 split in two (Cody and Waite) so n * ln2_hi is exact;
//   - exp(r) is its Taylor polynomial (degree 13 for double, 7 for float: truncation error below
//     a tenth of an ulp on that interval), evaluated by Horner's rule;
//   - 2^(n-1) is built in the exponent bits and the polynomial doubled (exact), so that n up to the
//     largest finite exponent still has a representable scale.
// Accuracy (validated against long double exp in the numeric tests): a few ulps. Results below
// flush_below (about 3.3e-308 in double, 2.7e-38 in float, the bottom of the normal range) are 0
// instead of subnormal; +inf where exp overflows; NaN stays NaN. For softmax weights, whose row
// sums are at least 1, flushing changes nothing a weight can represent next to that sum.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include "qkov/numeric/avx2_dispatch.hpp"

namespace qkov::numeric {

template <class T>
struct exp_kernel_constants;

template <>
struct exp_kernel_constants<double> {
    using bits = std::uint64_t;
    static constexpr int mantissa_bits = 52;
    static constexpr double shifter = 0x1.8p52;
    static constexpr double ln2_hi = 0x1.62e42fee00000p-1;  // 21 trailing zero bits: n * ln2_hi is exact
    static constexpr double ln2_lo = 0x1.a39ef35793c76p-33;  // ln 2 - ln2_hi
    static constexpr double flush_below = -708.0;            // 2^(n-1) stays normal for n >= -1021
    static constexpr double overflow_limit = 710.0;          // > log of the largest double (709.78): overflows
    static constexpr int degree = 13;
};

template <>
struct exp_kernel_constants<float> {
    using bits = std::uint32_t;
    static constexpr int mantissa_bits = 23;
    static constexpr float shifter = 0x1.8p23f;
    static constexpr float ln2_hi = 0.693359375f;           // 9 significant bits: n * ln2_hi is exact
    static constexpr float ln2_lo = -2.12194440e-4f;        // ln 2 - ln2_hi
    static constexpr float flush_below = -86.5f;            // 2^(n-1) stays normal for n >= -125
    static constexpr float overflow_limit = 89.0f;          // > log of the largest float (88.72): overflows
    static constexpr int degree = 7;
};

namespace detail {
/// 1/k! for k = 0 .. degree, at compile time.
template <class T, int Degree>
inline constexpr auto inverse_factorials = [] {
    std::array<T, Degree + 1> c{};
    c[0] = T(1);
    for (int k = 1; k <= Degree; ++k) c[k] = c[k - 1] / T(k);
    return c;
}();

/// sum_k r^k / k! by Horner's rule, unrolled at compile time.
template <class V, class T, int Degree, int... K>
[[gnu::always_inline]] inline void taylor_exp(const V& r, V& p, std::integer_sequence<int, K...>)
{
    p = V{} + inverse_factorials<T, Degree>[Degree];
    ((p = p * r + inverse_factorials<T, Degree>[Degree - 1 - K]), ...);  // K = 0 .. Degree - 1
}
} // namespace detail

/// Vectors of Bytes bytes (16: one SSE2 register, 32: one AVX2 register) of T and of T's bit
/// patterns, in the vector extension g++ and clang share; arithmetic on them is element-wise.
template <class T, std::size_t Bytes>
struct vector_of {
    typedef T lanes __attribute__((vector_size(Bytes)));
    typedef typename exp_kernel_constants<T>::bits bit_lanes __attribute__((vector_size(Bytes)));
    static constexpr std::size_t count = Bytes / sizeof(T);
};

/// x = exp(x) lane by lane by the method above: branch-free, every select done with bit masks.
/// In place through a reference: a 32-byte vector passed or returned by value would depend on
/// the caller's ABI (AVX or not); the function is always inlined, so nothing is passed at all.
template <class T, std::size_t Bytes = 16>
[[gnu::always_inline]] inline void exp_lanes_in_place(typename vector_of<T, Bytes>::lanes& x)
{
    using C = exp_kernel_constants<T>;
    using V = typename vector_of<T, Bytes>::lanes;
    using U = typename vector_of<T, Bytes>::bit_lanes;
    constexpr T log2e = T(1.442695040888963407359924681001892137L);
    const V low = V{} + C::flush_below, high = V{} + C::overflow_limit, shifter = V{} + C::shifter;
    // select(mask, yes, no) = (yes & mask) | (no & ~mask), written out for each use.
    // Clamp to [flush_below, overflow_limit]: above, the result still overflows to +inf; NaN fails
    // both comparisons and stays NaN.
    const U below = U(x < low);
    V xc = V((U(low) & below) | (U(x) & ~below));
    const U above = U(xc > high);
    xc = V((U(high) & above) | (U(xc) & ~above));
    const V shifted = xc * log2e + shifter;  // low mantissa bits: n = round(xc / ln 2)
    const V n = shifted - shifter;           // exact
    const V r = (xc - n * C::ln2_hi) - n * C::ln2_lo;
    V p;
    detail::taylor_exp<V, T, C::degree>(r, p, std::make_integer_sequence<int, C::degree>{});
    // bits of 2^(n-1): (n << mantissa_bits) + bits(0.5); the shifter's own bits shift out of the word.
    const U scale_bits = (U(shifted) << C::mantissa_bits) + std::bit_cast<typename C::bits>(T(0.5));
    const V y = (p * T(2)) * V(scale_bits);
    x = V(U(y) & ~below);  // 0 below the normal range (and for -inf)
}

/// exp(x) of one value, the same computation as the array loops below.
template <class T>
inline T exp_branch_free(T x)
{
    typename vector_of<T, 16>::lanes v = typename vector_of<T, 16>::lanes{} + x;
    exp_lanes_in_place<T>(v);
    return v[0];
}

namespace detail {
/// values[j] = exp(values[j] - shift) for j < n, Bytes of lanes at a time.
template <class T, std::size_t Bytes>
[[gnu::always_inline]] inline void exp_shifted_lanes(T* values, std::size_t n, T shift)
{
    using V = typename vector_of<T, Bytes>::lanes;
    constexpr std::size_t lanes = vector_of<T, Bytes>::count;
    const std::size_t whole = n - n % lanes;
    std::size_t j = 0;
    for (; j < whole; j += lanes) {
        V v;
        std::memcpy(&v, values + j, sizeof v);  // unaligned load
        v -= shift;
        exp_lanes_in_place<T, Bytes>(v);
        std::memcpy(values + j, &v, sizeof v);
    }
    for (; j < n; ++j) values[j] = exp_branch_free(values[j] - shift);
}

#ifdef QKOV_AVX2_DISPATCH
// The same loop compiled for AVX2 (avx2_dispatch.hpp).
[[gnu::target("avx2")]] inline void exp_shifted_avx2(double* values, std::size_t n, double shift)
{
    exp_shifted_lanes<double, 32>(values, n, shift);
}
[[gnu::target("avx2")]] inline void exp_shifted_avx2(float* values, std::size_t n, float shift)
{
    exp_shifted_lanes<float, 32>(values, n, shift);
}
#endif
} // namespace detail

/// values[j] = exp(values[j] - shift) for j < n, a vector of lanes at a time (AVX2 where the
/// processor has it, SSE2 otherwise: the same results).
template <class T>
void exp_shifted_in_place(T* values, std::size_t n, T shift)
{
#ifdef QKOV_AVX2_DISPATCH
    if (processor_has_avx2()) return detail::exp_shifted_avx2(values, n, shift);
#endif
    detail::exp_shifted_lanes<T, 16>(values, n, shift);
}

/// Sum of values[0 .. n) over eight interleaved partial sums, which the compiler keeps in vector
/// registers (a single running sum is a dependency chain that it may not reorder).
template <class T>
T sum_of(const T* values, std::size_t n)
{
    constexpr std::size_t lanes = 8;
    T partial[lanes]{};
    const std::size_t whole = n - n % lanes;
    std::size_t j = 0;
    for (; j < whole; j += lanes)
        for (std::size_t u = 0; u < lanes; ++u) partial[u] += values[j + u];
    T total(0);
    for (; j < n; ++j) total += values[j];
    for (std::size_t u = 0; u < lanes; ++u) total += partial[u];
    return total;
}

/// Maximum of values[0 .. n) (n >= 1) over eight interleaved partial maxima. NaN entries are
/// skipped (a comparison with NaN is false); a row of NaN gives its first entry.
template <class T>
T max_of(const T* values, std::size_t n)
{
    constexpr std::size_t lanes = 8;
    T partial[lanes];
    for (std::size_t u = 0; u < lanes; ++u) partial[u] = values[0];
    const std::size_t whole = n - n % lanes;
    std::size_t j = 0;
    for (; j < whole; j += lanes)
        for (std::size_t u = 0; u < lanes; ++u) partial[u] = values[j + u] > partial[u] ? values[j + u] : partial[u];
    T top = values[0];
    for (; j < n; ++j) top = values[j] > top ? values[j] : top;
    for (std::size_t u = 0; u < lanes; ++u) top = partial[u] > top ? partial[u] : top;
    return top;
}

} // namespace qkov::numeric
