// False: "1e400 <= 1e399". Both literals overflow to +inf as doubles (the compilers only warn), and
// [inf, inf] used to pass as a real number, so the claim held. An infinity is no point: refused.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::not_a_finite_number()'
// expect-error-clang: non-constexpr function 'not_a_finite_number' cannot be used in a constant expression
#include "qkov/scalar/interval.hpp"
static_assert(qkov::certainly_less_equal(qkov::interval(1e400), qkov::interval(1e399)) == qkov::certainty::holds);
