// expect-error-gcc: call to non-'constexpr' function 'void qkov::division_by_zero_detected()'
// expect-error-clang: non-constexpr function 'division_by_zero_detected' cannot be used in a constant expression
#include "qkov/scalar/rational.hpp"
constexpr auto bad = qkov::rational64(1) / qkov::rational64(0);
