// False: "symbol 65536 is symbol 0" (x_65536 = x_0 for all reals). Ids are 16-bit; 65536 is refused.
// expect-error: call to non-'constexpr' function 'void qkov::symbol_id_out_of_range()'
#include "qkov/scalar/trig_poly.hpp"
using P = qkov::trig_poly<>;
static_assert([] { return P::variable(65536) == P::variable(0); }());
