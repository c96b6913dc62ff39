// expect-error-gcc: inverse() needs an exact field scalar
// expect-error-clang: inverse() needs an exact field scalar
#include "qkov/matrix/elimination.hpp"
auto bad = qkov::inverse(qkov::matrix<qkov::checked_int64, 2, 2>::identity());
