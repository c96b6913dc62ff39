// Inverting a singular matrix in constant evaluation is a compile error naming the reason.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::singular_matrix_has_no_inverse()'
// expect-error-clang: non-constexpr function 'singular_matrix_has_no_inverse' cannot be used in a constant expression
#include "qkov/matrix/elimination.hpp"
#include "qkov/scalar/rational.hpp"
using Q = qkov::rational64;
constexpr auto singular = qkov::matrix<Q, 2, 2>::from_rows({{Q(1), Q(2)}, {Q(2), Q(4)}});
constexpr auto bad = qkov::inverse(singular);
