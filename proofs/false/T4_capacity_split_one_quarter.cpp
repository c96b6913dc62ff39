// False twin of T4: the heads spend a quarter of their capacity (2 of 8 channels) on composition.
// expect-error-gcc: static assertion failed: T4 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': T4 false twin
#include "../T4_virtual_head.cpp"

namespace {
static_assert(rational64(composed_channels, total_channels) == rational64(1, 4), "T4 false twin: 1/4 composes");
}
