// False: "P(2^64) == P(0)" with an __int128 constant (which used to be cast to int64, i.e. 0).
// expect-error-gcc: call to non-'constexpr' function 'void qkov::coefficient_out_of_range()'
// expect-error-clang: non-constexpr function 'coefficient_out_of_range' cannot be used in a constant expression
#include "qkov/scalar/trig_poly.hpp"
using P = qkov::trig_poly<>;
static_assert([] { return P(static_cast<__int128>(1) << 64) == P(0); }());
