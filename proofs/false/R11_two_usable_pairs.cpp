// False twin of R11: two usable pairs at d = 64, window 1000, eps = 0.01 (there is one).
// expect-error-gcc: static assertion failed: R11 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': R11 false twin
#include "qkov/circuits/rope.hpp"
#include "qkov/circuits/rope_window_bounds.hpp"
#include "qkov/scalar/interval.hpp"

namespace {
using namespace qkov;
// As in the proof: d = 64, base 10000, 40 evaluations per pair.
constexpr numeric_angles<interval, 32> seed_angles{standard_theta<interval, 32>(10000.0)};
constexpr auto seeds_1000_1pct = usable_semantic_pairs<interleaved_layout(64)>(seed_angles, 1000, 0.01, 40);
static_assert(seeds_1000_1pct.usable == 2, "R11 false twin: 2 usable pairs");
}
