// False: "a value in [-1e400, -1e400] is at most -1e401". The literals overflow to -inf, and an upper
// bound of -inf was at most everything. -inf may only be a lower end: refused.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::not_a_finite_number()'
// expect-error-clang: non-constexpr function 'not_a_finite_number' cannot be used in a constant expression
#include "qkov/scalar/certified.hpp"
static_assert(qkov::certified(-1e400, -1e400).is_at_most(-1e401) == qkov::certainty::holds);
