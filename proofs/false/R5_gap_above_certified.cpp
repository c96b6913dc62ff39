// False twin of R5: the minimum gap over the window of 4096 exceeds its certified lower bound by
// 1e-6. The true gap (1.0831683383809...) is below that, so the comparison is undecided or fails,
// never holds.
// expect-error-gcc: static assertion failed: R5 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': R5 false twin
#include "../R5_previous_token_gap.cpp"

namespace {
static_assert(gap_4096.exceeds(gap_4096.lower + 1e-6) == certainty::holds, "R5 false twin: gap > certified bound + 1e-6");
}
