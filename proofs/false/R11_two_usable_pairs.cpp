// False twin of R11: two usable pairs at d = 64, window 1000, eps = 0.01 (there is one).
// expect-error-gcc: static assertion failed: R11 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': R11 false twin
#include "../R11_semantic_pair_count.cpp"

namespace {
static_assert(seeds_1000_1pct.usable == 2, "R11 false twin: 2 usable pairs");
}
