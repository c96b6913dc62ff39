// False twin of R6: at alpha = 100 over 2048 tokens the mass off the previous token is below
// 1.8181e-47. It is 1.8181376594945578...e-47 (the formula of the proof summed by mpmath at 50
// digits in tests/certified_values.py), 2e-5 relative above; the proof pins the enclosure above
// 1.8181e-47, so the comparison fails, not just undecided.
// expect-error-gcc: static assertion failed: R6 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': R6 false twin
#include "qkov/circuits/previous_token_bounds.hpp"
#include "qkov/scalar/certified.hpp"
#include "../certified_seed_setting.hpp"

namespace {
using namespace qkov;
using namespace qkov::seed_setting;
constexpr auto alpha100_2048 = certified_previous_token_mass<L>(angles, interval(100), 2048);  // as in the proof
static_assert(alpha100_2048.off_previous_mass.is_below(1.8181e-47) == certainty::holds, "R6 false twin: off-previous mass < 1.8181e-47");
}
