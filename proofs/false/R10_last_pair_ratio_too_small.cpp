// False twin of R10: d0 = d - 2 with E = 2 gives a worst ratio of about 1.0179; claiming it
// below 1.017 must not compile.
// expect-error-gcc: static assertion failed: R10 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': R10 false twin
#include "../R10_semantic_spread.cpp"

namespace {
static_assert(ratio_62.is_below(1.017) == certainty::holds, "R10 false twin: ratio < 1.017");
}
