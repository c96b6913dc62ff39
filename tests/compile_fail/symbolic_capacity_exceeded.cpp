// A monomial with more phases than trig_poly's capacity (two by default) is refused, not truncated.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::symbolic_capacity_exceeded()'
// expect-error-clang: non-constexpr function 'symbolic_capacity_exceeded' cannot be used in a constant expression
#include "qkov/scalar/trig_poly.hpp"
using P = qkov::trig_poly<>;
static_assert((P::phase(0, qkov::position(0)) * P::phase(1, qkov::position(0)) * P::phase(2, qkov::position(0))).size() == 1);
