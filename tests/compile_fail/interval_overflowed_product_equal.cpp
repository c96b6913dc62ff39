// False: "1e308 * 10 = 1e308 * 100", the products computed by qkov's interval multiplication from
// finite points. Both overflow inside it: g++'s evaluator would refuse the multiplication unnamed
// and clang's round it to infinity, so the product stops first, by name, on both.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::interval_overflow_in_constant_evaluation()'
// expect-error-clang: non-constexpr function 'interval_overflow_in_constant_evaluation' cannot be used in a constant expression
#include "qkov/scalar/interval.hpp"
static_assert(qkov::certainly_equal(qkov::interval(1e308) * qkov::interval(10.0), qkov::interval(1e308) * qkov::interval(100.0)) ==
              qkov::certainty::holds);
