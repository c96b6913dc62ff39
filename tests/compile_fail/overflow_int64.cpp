// int64 overflow in constant evaluation is a compile error that says so.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::integer_overflow_detected()'
// expect-error-clang: non-constexpr function 'integer_overflow_detected' cannot be used in a constant expression
#include <cstdint>
#include <limits>
#include "qkov/scalar/checked.hpp"
constexpr qkov::checked_int64 big = std::numeric_limits<std::int64_t>::max();
constexpr auto bad = big + qkov::checked_int64(1);
