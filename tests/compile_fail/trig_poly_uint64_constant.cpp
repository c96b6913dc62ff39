// False: "P(2^64 - 1) == P(-1)". The unsigned 64-bit constant does not fit the 64-bit signed
// coefficient and is refused by name, not cast.
// expect-error: call to non-'constexpr' function 'void qkov::coefficient_out_of_range()'
#include <cstdint>
#include <limits>
#include "qkov/scalar/trig_poly.hpp"
using P = qkov::trig_poly<>;
static_assert([] { return P(std::numeric_limits<std::uint64_t>::max()) == P(-1); }());
