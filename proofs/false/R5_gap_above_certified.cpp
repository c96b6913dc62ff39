// False twin of R5: the gap at offset 1 exceeds its certified lower bound by 1e-6. The true gap
// (1.08316833838...) is below that, so the comparison fails or is undecided - never holds.
// expect-error: static assertion failed: R5 false twin
#include "../R5_previous_token_gap.cpp"

namespace {
static_assert(certainly_less(interval(min_gap_20 + 1e-6), certified_gap(certified_head{}, 1)) == certainty::holds,
              "R5 false twin: gap(1) > certified bound + 1e-6");
}
