// False: "1/10 in quadruple precision is not below the double 0.1" (it is: the double nearest 0.1
// lies above 0.1). A __float128 used to convert silently to that double and be treated as exact;
// it matches no interval constructor now.
// expect-error-gcc: no matching function for call to 'qkov::interval::interval(const __float128&)'
// expect-error-clang: no matching conversion for functional-style cast from 'const __float128' to 'qkov::interval'
// expect-error-clang: '__float128' does not satisfy 'interval_source'
#include "qkov/scalar/interval.hpp"
constexpr __float128 tenth = static_cast<__float128>(1) / 10;
static_assert(qkov::certainly_less(qkov::interval(tenth), qkov::interval(0.1)) == qkov::certainty::fails);
