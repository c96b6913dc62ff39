// The square root of an interval reaching below 0 is not a real interval: a compile error.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::invalid_interval_detected()'
// expect-error-clang: non-constexpr function 'invalid_interval_detected' cannot be used in a constant expression
#include "qkov/scalar/interval_functions.hpp"
constexpr auto bad = qkov::sqrt(qkov::interval(-1e-300, 1.0));
