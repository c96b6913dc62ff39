// False twin of R5: a gap larger than 1.1 alpha over 1..20. The gap at n - m = 1 is 1.0832 alpha.
// expect-error-gcc: static assertion failed: R5 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': R5 false twin
#include "../R5_previous_token_gap.cpp"

namespace {
static_assert(gap_20.exceeds(1.1) == certainty::holds, "R5 false twin: gap over 1..20 exceeds 1.1");
}
