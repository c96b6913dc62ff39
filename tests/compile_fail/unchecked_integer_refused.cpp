// A plain long long would overflow silently at run time: rational<long long> is refused.
// expect-error: exact_integer
#include "qkov/scalar/rational.hpp"
qkov::rational<long long> bad;
