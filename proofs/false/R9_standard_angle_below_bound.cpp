// False twin of R9: the standard last angle at d = 64 below 1.3335e-4 (it is 1.33352...e-4).
// expect-error-gcc: static assertion failed: R9 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': R9 false twin
#include "../R9_last_angle_schedules.cpp"

namespace {
static_assert(standard_64.is_below(1.3335e-4) == certainty::holds, "R9 false twin: standard theta_{d/2} < 1.3335e-4");
}
