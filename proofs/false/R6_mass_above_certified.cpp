// False twin of R6: at alpha = 1 over 20 tokens, a previous-token mass 1e-6 above the certified
// upper bound. It is not there, so the comparison fails.
// expect-error-gcc: static assertion failed: R6 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': R6 false twin
#include "../R6_previous_token_mass.cpp"

namespace {
static_assert(alpha1_20.mass.exceeds(alpha1_20.mass.upper + 1e-6) == certainty::holds, "R6 false twin: mass above its bound");
}
