// expect-error: call to non-'constexpr' function 'void qkov::division_by_zero_detected()'
#include "qkov/scalar/rational.hpp"
constexpr auto bad = qkov::rational64(1) / qkov::rational64(0);
