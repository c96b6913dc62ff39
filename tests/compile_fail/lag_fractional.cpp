// False: "the attention pattern with lag 1.5 is the one with lag 1" (no token is 1.5 positions back).
// A lag is an integer; a double matches no overload instead of being cut to 1.
// expect-error-gcc: no matching function for call to 'lagged_token_pattern<int, 4>(double)'
// expect-error-clang: no matching function for call to 'lagged_token_pattern'
// expect-error-clang: 'double' does not satisfy 'native_integer'
#include "qkov/circuits/hard_attention.hpp"
static_assert(qkov::lagged_token_pattern<int, 4>(1.5) == qkov::lagged_token_pattern<int, 4>(1));
