// False: "P(2^64 - 1) == P(-1)". The unsigned 64-bit constant does not fit the 64-bit signed
// coefficient and is refused by name, not cast.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::coefficient_out_of_range()'
// expect-error-clang: non-constexpr function 'coefficient_out_of_range' cannot be used in a constant expression
#include <cstdint>
#include <limits>
#include "qkov/scalar/trig_poly.hpp"
using P = qkov::trig_poly<>;
static_assert([] { return P(std::numeric_limits<std::uint64_t>::max()) == P(-1); }());
