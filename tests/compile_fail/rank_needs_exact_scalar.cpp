// A rank over double needs a tolerance and proves nothing: the exact rank refuses it.
// expect-error: required for the satisfaction of 'exact_scalar<T>' [with T = double]
#include "qkov/matrix/elimination.hpp"
auto bad = qkov::rank(qkov::matrix<double, 2, 2>::identity());
