// False twin of R10: d0 = d - 2 with E = 2 gives a worst ratio below 1.017878. It is exp(2
// (cos(theta_31) - cos(999 theta_31))) = 1.0178789454607503... (mpmath at 50 digits in
// tests/certified_values.py), 9e-7 above; the proof pins the enclosure above 1.017878, so the
// comparison fails, not just undecided.
// expect-error-gcc: static assertion failed: R10 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': R10 false twin
#include "qkov/circuits/rope_window_bounds.hpp"
#include "qkov/scalar/certified.hpp"
#include "qkov/scalar/interval_functions.hpp"
#include "../certified_seed_setting.hpp"

namespace {
using namespace qkov;
using namespace qkov::seed_setting;
// The proof's library calls restated, not the proof included (which would evaluate all of it again).
constexpr certified spread_62 = cosine_ranges_over_window<L>(angles, 999, 60).worst_spread(62);  // as in the proof
constexpr certified ratio_62(exp(interval(2.0) * spread_62.enclosure()));
static_assert(ratio_62.is_below(1.017878) == certainty::holds, "R10 false twin: ratio < 1.017878");
}
