// False twin of R8 (certified part): a guaranteed relative drop above 4.2869e-9 over 1..512. The
// true c_512 is 4.2868157378677358...e-9 (min over pairs and offsets of 1 - cos(k theta_l), by
// mpmath at 50 digits in tests/certified_values.py), 2.0e-5 relative below; the proof pins the
// enclosure below 4.2869e-9, so the comparison fails, not just undecided.
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
static_assert(drop_512.exceeds(4.2869e-9) == certainty::holds, "R8 false twin: drop over 1..512 above 4.2869e-9");
}
