// False twin of R5: the minimum gap over the window of 4096 exceeds 1.0831684. The true gap is g(1)
// = 1.08316833838097405906... (32 - sum_l cos(theta_l), summed by mpmath at 50 digits in
// tests/certified_values.py), 6.2e-8 below; the proof pins the enclosure below 1.0831684, so the
// comparison fails, not just undecided.
// expect-error-gcc: static assertion failed: R5 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': R5 false twin
#include "qkov/circuits/previous_token_bounds.hpp"
#include "qkov/scalar/certified.hpp"
#include "../certified_seed_setting.hpp"

namespace {
using namespace qkov;
using namespace qkov::seed_setting;
constexpr certified gap_4096 = certified_minimum_gap<L>(angles, 1, 4096);  // as in the proof
static_assert(gap_4096.exceeds(1.0831684) == certainty::holds, "R5 false twin: gap over 1..4096 > 1.0831684");
}
