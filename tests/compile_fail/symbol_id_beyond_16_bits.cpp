// False: "symbol 65536 is symbol 0" (x_65536 = x_0 for all reals). Ids are 16-bit; 65536 is refused.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::symbol_id_out_of_range()'
// expect-error-clang: non-constexpr function 'symbol_id_out_of_range' cannot be used in a constant expression
#include "qkov/scalar/trig_poly.hpp"
using P = qkov::trig_poly<>;
static_assert([] { return P::variable(65536) == P::variable(0); }());
