// False: "the double 0.1 is at most 0.1L" (the double nearest 0.1 lies above 0.1L). A long double
// threshold used to be narrowed to that double and the claim certified; it is now enclosed, so the
// claim is undecided and rejected.
// expect-error-gcc: static assertion failed: 0.1 is at most 0.1L
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': 0.1 is at most 0.1L
#include "qkov/scalar/certified.hpp"
static_assert(qkov::certified(0.1, 0.1).is_at_most(0.1L) == qkov::certainty::holds, "0.1 is at most 0.1L");
