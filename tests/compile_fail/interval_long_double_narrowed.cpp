// False: "0.1 as a double <= 0.1L" (the double nearest 0.1 is above the long double 0.1L). The long
// double is now enclosed, not narrowed and treated as exact, so the claim is undecided: rejected.
// expect-error-gcc: static assertion failed: 0.1 <= 0.1L
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': 0.1 <= 0.1L
#include "qkov/scalar/interval.hpp"
static_assert(qkov::certainly_less_equal(qkov::interval(0.1), qkov::interval(0.1L)) == qkov::certainty::holds,
              "0.1 <= 0.1L");
