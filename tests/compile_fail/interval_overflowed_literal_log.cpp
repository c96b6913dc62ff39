// False: "log(1e400) <= log(1e399)". log kept +inf at both ends of [inf, inf], so the claim held.
// The overflowed literal is refused before log sees it.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::not_a_finite_number()'
// expect-error-clang: non-constexpr function 'not_a_finite_number' cannot be used in a constant expression
#include "qkov/scalar/interval_functions.hpp"
static_assert(qkov::certainly_less_equal(qkov::log(qkov::interval(1e400)), qkov::log(qkov::interval(1e399))) ==
              qkov::certainty::holds);
