// False twin of R5: the minimum gap over the window of 4096 exceeds its certified lower bound by
// 1e-6. The true gap (1.0831683383809...) is below that, so the comparison is undecided or fails,
// never holds.
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
static_assert(gap_4096.exceeds(gap_4096.lower + 1e-6) == certainty::holds, "R5 false twin: gap > certified bound + 1e-6");
}
