// False: "P(0.5) == P(0)". trig_poly is exact; a double is refused, not cut to an integer.
// expect-error: use of deleted function
// expect-error: trig_poly(F) [with F = double
#include "qkov/scalar/trig_poly.hpp"
using P = qkov::trig_poly<>;
static_assert([] { return P(0.5) == P(0); }());
