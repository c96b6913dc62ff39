// False twin of R5: over 1..20 the previous token outscores every other key by less than 1.0831683
// alpha. The true minimum gap is g(1) = 1.08316833838097405906... (32 - sum_l cos(theta_l), summed
// by mpmath at 50 digits in tests/certified_values.py), 3.8e-8 above; the proof pins the enclosure
// above 1.0831683, so the comparison fails, not just undecided.
// expect-error-gcc: static assertion failed: R5 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': R5 false twin
#include "qkov/circuits/previous_token_bounds.hpp"
#include "qkov/scalar/certified.hpp"
#include "../certified_seed_setting.hpp"

namespace {
using namespace qkov;
using namespace qkov::seed_setting;
constexpr certified gap_20 = certified_minimum_gap<L>(angles, 1, 20);  // as in the proof
static_assert(gap_20.is_below(1.0831683) == certainty::holds, "R5 false twin: gap over 1..20 below 1.0831683");
}
