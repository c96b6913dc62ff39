// False: "the smallest integer k in [2.5, 10] is at most 2" (it is 3). A range end given as a double
// used to be cut to 2, and the claim was certified; a range end must be an integer now, and a double
// matches no overload.
// expect-error-gcc: no matching function for call to 'certified_minimum
// expect-error-clang: no matching function for call to 'certified_minimum
#include "qkov/scalar/integer_range_bounds.hpp"
static_assert(qkov::certified_minimum([](const qkov::interval& k) { return k; }, 2.5, 10).is_at_most(2) ==
              qkov::certainty::holds);
