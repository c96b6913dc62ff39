// False twin of R11: two usable pairs at d = 64, window 1000, eps = 0.01 (there is one).
// expect-error-gcc: static assertion failed: R11 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': R11 false twin
#include "qkov/circuits/rope_window_bounds.hpp"
#include "../certified_seed_setting.hpp"

namespace {
using namespace qkov;
using namespace qkov::seed_setting;
constexpr auto seeds_1000_1pct = usable_semantic_pairs<L>(angles, 1000, 0.01, 40);  // as in the proof (40 evaluations per pair)
static_assert(seeds_1000_1pct.usable == 2, "R11 false twin: 2 usable pairs");
}
