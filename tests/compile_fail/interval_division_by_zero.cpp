// Dividing by an interval that contains 0 has no finite enclosure: a compile error naming why.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::interval_division_by_zero_detected()'
// expect-error-clang: non-constexpr function 'interval_division_by_zero_detected' cannot be used in a constant expression
#include "qkov/scalar/interval.hpp"
constexpr auto bad = qkov::interval(1.0) / qkov::interval(-1.0, 1.0);
