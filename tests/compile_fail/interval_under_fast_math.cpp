// -ffast-math would compile away the NaN checks of every interval operation: refused.
// compile-flags: -ffast-math
// expect-error-gcc: interval arithmetic is unsound under -ffast-math
// expect-error-clang: interval arithmetic is unsound under -ffast-math
#include "qkov/scalar/interval.hpp"

static_assert(qkov::interval(1.0).lo() == 1.0);
