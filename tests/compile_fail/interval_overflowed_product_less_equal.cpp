// False: "1e308 * 100 <= 1e308 * 10". g++ refuses the overflowing product in constant evaluation;
// clang folds it to +inf, which used to enter as the point [inf, inf]: now refused as no real number.
// expect-error-gcc: '(1.0e+308 * 1.0e+2)' is not a constant expression
// expect-error-clang: non-constexpr function 'not_a_finite_number' cannot be used in a constant expression
#include "qkov/scalar/interval.hpp"
static_assert(qkov::certainly_less_equal(qkov::interval(1e308 * 100.0), qkov::interval(1e308 * 10.0)) ==
              qkov::certainty::holds);
