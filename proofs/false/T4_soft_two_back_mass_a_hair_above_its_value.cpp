// False twin of T4 (soft): at alpha = 1 the two-back mass exceeds 0.4230368 in every row. Its
// minimum over rows is 0.42303678072278673... (the 20 x 20 softmax pattern and its square by mpmath
// at 50 digits in tests/certified_values.py), 1.9e-8 below; the proof pins the enclosure below
// 0.4230368, so the comparison fails, not just undecided.
// expect-error-gcc: static assertion failed: T4 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': T4 false twin
#include "../two_back_head.hpp"

using namespace qkov;  // this proof file only: the shared headers declare in qkov and import nothing

namespace {
constexpr two_back alpha1 = composed_two_back_mass(1.0);  // as in the proof
static_assert(alpha1.mass.exceeds(0.4230368) == certainty::holds, "T4 false twin: two-back mass > 0.4230368 at alpha = 1");
}
