// False twin of R8 (certified part): a guaranteed relative drop 1e-9 larger than certified over
// 1..512: the minimum cannot exceed its own certified upper bound, so this fails.
// expect-error-gcc: static assertion failed: R8 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': R8 false twin
#include "qkov/circuits/rope_window_bounds.hpp"
#include "qkov/scalar/certified.hpp"
#include "../certified_seed_setting.hpp"

namespace {
using namespace qkov;
using namespace qkov::seed_setting;
constexpr certified drop_512 = smallest_relative_recency_drop<L>(angles, 512);  // as in the proof
static_assert(drop_512.exceeds(drop_512.upper + 1e-9) == certainty::holds, "R8 false twin: drop above certified");
}
