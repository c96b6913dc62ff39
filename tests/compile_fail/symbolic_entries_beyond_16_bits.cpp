// False: "a 2 x 2 matrix of symbols starting at id 65535 has entry (0, 1) equal to symbol 0" (the
// id 65536 used to wrap to 0). Its ids run past 65535 and the matrix is refused.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::symbol_id_out_of_range()'
// expect-error-clang: non-constexpr function 'symbol_id_out_of_range' cannot be used in a constant expression
#include "qkov/matrix/symbolic_entries.hpp"
#include "qkov/scalar/trig_poly.hpp"
using P = qkov::trig_poly<>;
static_assert([] { return qkov::symbolic_entries<P, 2, 2>(65535)(0, 1) == P::variable(0); }());
