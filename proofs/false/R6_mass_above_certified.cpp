// False twin of R6: at alpha = 1 over 20 tokens, a previous-token mass 1e-6 above the certified
// upper bound. It is not there, so the comparison fails.
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
static_assert(alpha1_20.mass.exceeds(alpha1_20.mass.upper + 1e-6) == certainty::holds, "R6 false twin: mass above its bound");
}
