// False: "1e400 = 1e500". Both literals overflow to +inf as doubles, and two [inf, inf] points used
// to be certainly equal. An infinity is no point: refused.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::not_a_finite_number()'
// expect-error-clang: non-constexpr function 'not_a_finite_number' cannot be used in a constant expression
#include "qkov/scalar/interval.hpp"
static_assert(qkov::certainly_equal(qkov::interval(1e400), qkov::interval(1e500)) == qkov::certainty::holds);
