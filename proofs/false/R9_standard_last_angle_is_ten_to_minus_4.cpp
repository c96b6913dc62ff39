// False twin of R9: the standard schedule's last angle at d = 64 is 10^-4 (it is 10^-3.875).
// expect-error-gcc: static assertion failed: R9 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': R9 false twin
#include "../R9_last_angle_schedules.cpp"

namespace {
static_assert(standard_exponent<Q>(31, 32) == Q(-1), "R9 false twin: standard last exponent is -1 (theta = 10^-4)");
}
