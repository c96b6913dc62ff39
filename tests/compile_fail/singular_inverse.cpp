// Inverting a singular matrix in constant evaluation is a compile error naming the reason.
// expect-error: call to non-'constexpr' function 'void qkov::singular_matrix_has_no_inverse()'
#include "qkov/matrix/elimination.hpp"
#include "qkov/scalar/rational.hpp"
using Q = qkov::rational64;
constexpr auto singular = qkov::matrix<Q, 2, 2>::from_rows({{Q(1), Q(2)}, {Q(2), Q(4)}});
constexpr auto bad = qkov::inverse(singular);
