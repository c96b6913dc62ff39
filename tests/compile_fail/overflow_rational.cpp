// A rational whose denominator leaves int64: 1/(2^40) * 1/(2^40).
// expect-error-gcc: call to non-'constexpr' function 'void qkov::integer_overflow_detected()'
// expect-error-clang: non-constexpr function 'integer_overflow_detected' cannot be used in a constant expression
#include "qkov/scalar/rational.hpp"
constexpr qkov::rational64 tiny(std::int64_t{1}, std::int64_t{1} << 40);
constexpr auto bad = tiny * tiny;
