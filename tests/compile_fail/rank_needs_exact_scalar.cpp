// A rank over double needs a tolerance and proves nothing: the exact rank refuses it.
// expect-error-gcc: required for the satisfaction of 'exact_scalar<T>' [with T = double]
// expect-error-clang: no matching function for call to 'rank'
// expect-error-clang: 'double' does not satisfy 'exact_scalar'
#include "qkov/matrix/elimination.hpp"
auto bad = qkov::rank(qkov::matrix<double, 2, 2>::identity());
