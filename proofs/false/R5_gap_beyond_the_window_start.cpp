// False twin of R5: a gap larger than 1.1 alpha over 1..20. The gap at n - m = 1 is 1.0832 alpha.
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
static_assert(gap_20.exceeds(1.1) == certainty::holds, "R5 false twin: gap over 1..20 exceeds 1.1");
}
