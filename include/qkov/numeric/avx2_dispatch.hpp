// Loops the compiler vectorises, run twice as wide where the processor has AVX2.
//
// The library is built for x86-64's baseline (SSE2: two doubles or four floats a vector), so that
// its binaries run anywhere. A hot loop written once in an always_inline function is compiled a
// second time inside a [[gnu::target("avx2")]] function and chosen at run time. AVX2 without FMA:
// every lane does the same operations in the same order as under SSE2, nothing is fused, so both
// versions give the same bits and a result does not depend on the machine that computed it.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define QKOV_AVX2_DISPATCH 1
#endif

namespace qkov::numeric {

/// Whether the AVX2 versions may run here (false where they are not compiled).
inline bool processor_has_avx2()
{
#ifdef QKOV_AVX2_DISPATCH
    static const bool has = __builtin_cpu_supports("avx2");
    return has;
#else
    return false;
#endif
}

} // namespace qkov::numeric
