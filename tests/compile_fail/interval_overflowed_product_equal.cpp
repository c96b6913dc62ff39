// False: "1e308 * 10 = 1e308 * 100". g++ refuses the overflowing products in constant evaluation;
// clang folds both to +inf, and two [inf, inf] points used to be certainly equal: now refused.
// expect-error-gcc: '(1.0e+308 * 1.0e+1)' is not a constant expression
// expect-error-clang: non-constexpr function 'not_a_finite_number' cannot be used in a constant expression
#include "qkov/scalar/interval.hpp"
static_assert(qkov::certainly_equal(qkov::interval(1e308 * 10.0), qkov::interval(1e308 * 100.0)) ==
              qkov::certainty::holds);
