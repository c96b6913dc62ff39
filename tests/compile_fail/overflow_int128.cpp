// __int128 overflow in constant evaluation: 2^100 * 2^30.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::integer_overflow_detected()'
// expect-error-clang: non-constexpr function 'integer_overflow_detected' cannot be used in a constant expression
#include "qkov/scalar/checked.hpp"
constexpr qkov::checked_int128 two_to_100 = static_cast<__int128>(1) << 100;
constexpr auto bad = two_to_100 * qkov::checked_int128(static_cast<__int128>(1) << 30);
