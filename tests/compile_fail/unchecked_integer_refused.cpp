// A plain long long would overflow silently at run time: rational<long long> is refused.
// expect-error-gcc: required for the satisfaction of 'exact_integer<I>' [with I = long long int]
// expect-error-clang: constraints not satisfied for class template 'rational' [with I = long long]
// expect-error-clang: 'long long' does not satisfy 'exact_integer'
#include "qkov/scalar/rational.hpp"
qkov::rational<long long> bad;
