// A 3 x 2 matrix of rank 1 has neither full column nor full row rank.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::pseudo_inverse_needs_full_rank()'
// expect-error-clang: non-constexpr function 'pseudo_inverse_needs_full_rank' cannot be used in a constant expression
#include "qkov/matrix/pseudo_inverse.hpp"
#include "qkov/scalar/rational.hpp"
using Q = qkov::rational64;
constexpr auto deficient = qkov::matrix<Q, 3, 2>::from_rows({{Q(1), Q(2)}, {Q(2), Q(4)}, {Q(3), Q(6)}});
constexpr auto bad = qkov::pseudo_inverse(deficient);
