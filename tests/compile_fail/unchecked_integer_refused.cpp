// A plain long long would overflow silently at run time: rational<long long> is refused.
// expect-error: required for the satisfaction of 'exact_integer<I>' [with I = long long int]
#include "qkov/scalar/rational.hpp"
qkov::rational<long long> bad;
