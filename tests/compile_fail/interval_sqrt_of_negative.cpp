// The square root of an interval reaching below 0 is not a real interval: a compile error.
// expect-error: call to non-'constexpr' function 'void qkov::invalid_interval_detected()'
#include "qkov/scalar/interval_functions.hpp"
constexpr auto bad = qkov::sqrt(qkov::interval(-1e-300, 1.0));
