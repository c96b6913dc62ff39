// False: "P(0.5) == P(0)". trig_poly is exact; a double is refused, not cut to an integer.
// expect-error-gcc: use of deleted function
// expect-error-gcc: trig_poly(F) [with F = double
// expect-error-clang: uses deleted function
// expect-error-clang: candidate constructor [with F = double] has been explicitly deleted
#include "qkov/scalar/trig_poly.hpp"
using P = qkov::trig_poly<>;
static_assert([] { return P(0.5) == P(0); }());
