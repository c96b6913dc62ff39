// exp over contiguous arrays, written so that the compiler vectorizes it (SSE2 is enough).
//
// std::exp is a library call per element, which no loop around it can vectorize without
// -ffast-math; the softmax of an L x L pattern makes L^2 / 2 of those calls. This kernel has no
// branches and no calls, only + - * on T, integer shifts and adds on the bit patterns and selects,
// so g++ -O2/-O3 turns the loops below into packed SSE2 code (2 doubles or 4 floats per
// instruction) without any -march flag.
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

namespace qkov::numeric {

template <class T>
struct exp_kernel_constants;

template <>
struct exp_kernel_constants<double> {
    using bits = std::uint64_t;
    // 16-byte vectors (one SSE2 register) of doubles and of their bit patterns, in the vector
    // extension g++ and clang share; arithmetic on them is element-wise.
    typedef double lanes __attribute__((vector_size(16)));
    typedef bits bit_lanes __attribute__((vector_size(16)));
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
    typedef float lanes __attribute__((vector_size(16)));
    typedef bits bit_lanes __attribute__((vector_size(16)));
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
inline V taylor_exp(V r, std::integer_sequence<int, K...>)
{
    V p = V{} + inverse_factorials<T, Degree>[Degree];
    ((p = p * r + inverse_factorials<T, Degree>[Degree - 1 - K]), ...);  // K = 0 .. Degree - 1
    return p;
}
} // namespace detail

template <class T>
using lanes_of = typename exp_kernel_constants<T>::lanes;
template <class T>
using bit_lanes_of = typename exp_kernel_constants<T>::bit_lanes;
template <class T>
inline constexpr std::size_t lane_count = 16 / sizeof(T);

/// exp of each lane by the method above: branch-free, every select done with bit masks.
template <class T>
inline lanes_of<T> exp_lanes(lanes_of<T> x)
{
    using C = exp_kernel_constants<T>;
    using V = lanes_of<T>;
    using U = bit_lanes_of<T>;
    constexpr T log2e = T(1.442695040888963407359924681001892137L);
    const V low = V{} + C::flush_below, high = V{} + C::overflow_limit, shifter = V{} + C::shifter;
    const auto select = [](U mask, V yes, V no) { return V((U(yes) & mask) | (U(no) & ~mask)); };
    // Clamp to [flush_below, overflow_limit]: above, the result still overflows to +inf; NaN fails
    // both comparisons and stays NaN.
    const U below = U(x < low);
    V xc = select(below, low, x);
    xc = select(U(xc > high), high, xc);
    const V shifted = xc * log2e + shifter;  // low mantissa bits: n = round(xc / ln 2)
    const V n = shifted - shifter;           // exact
    const V r = (xc - n * C::ln2_hi) - n * C::ln2_lo;
    const V p = detail::taylor_exp<V, T, C::degree>(r, std::make_integer_sequence<int, C::degree>{});
    // bits of 2^(n-1): (n << mantissa_bits) + bits(0.5); the shifter's own bits shift out of the word.
    const U scale_bits = (U(shifted) << C::mantissa_bits) + std::bit_cast<typename C::bits>(T(0.5));
    const V y = (p * T(2)) * V(scale_bits);
    return V(U(y) & ~below);  // 0 below the normal range (and for -inf)
}

/// exp(x) of one value, the same computation as the array loops below.
template <class T>
inline T exp_branch_free(T x)
{
    return exp_lanes<T>(lanes_of<T>{} + x)[0];
}

/// values[j] = exp(values[j] - shift) for j < n, a vector of lanes at a time.
template <class T>
void exp_shifted_in_place(T* values, std::size_t n, T shift)
{
    using V = lanes_of<T>;
    constexpr std::size_t lanes = lane_count<T>;
    const std::size_t whole = n - n % lanes;
    std::size_t j = 0;
    for (; j < whole; j += lanes) {
        V v;
        std::memcpy(&v, values + j, sizeof v);  // unaligned load
        v = exp_lanes<T>(v - shift);
        std::memcpy(values + j, &v, sizeof v);
    }
    for (; j < n; ++j) values[j] = exp_branch_free(values[j] - shift);
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
