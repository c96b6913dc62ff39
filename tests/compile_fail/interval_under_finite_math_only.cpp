// -ffinite-math-only alone (without the rest of -ffast-math) already assumes NaN away: refused.
// compile-flags: -ffinite-math-only
// expect-error-gcc: interval arithmetic is unsound under -ffast-math or -ffinite-math-only
// expect-error-clang: interval arithmetic is unsound under -ffast-math or -ffinite-math-only
#include "qkov/scalar/interval.hpp"

static_assert(qkov::interval(1.0).lo() == 1.0);
