// False twin of R6: at alpha = 1 over 20 tokens, a previous-token mass above 0.5867. The true mass
// is 0.58664847948515947... (the formula of the proof summed by mpmath at 50 digits in
// tests/certified_values.py), 5.2e-5 below; the proof pins the enclosure below 0.5867, so the
// comparison fails, not just undecided.
// expect-error-gcc: static assertion failed: R6 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': R6 false twin
#include "qkov/circuits/previous_token_bounds.hpp"
#include "qkov/scalar/certified.hpp"
#include "../certified_seed_setting.hpp"

namespace {
using namespace qkov;
using namespace qkov::seed_setting;
constexpr auto alpha1_20 = certified_previous_token_mass<L>(angles, interval(1), 20);  // as in the proof
static_assert(alpha1_20.mass.exceeds(0.5867) == certainty::holds, "R6 false twin: mass at alpha = 1 above 0.5867");
}
