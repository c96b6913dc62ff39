// Boost's checked 256-bit integer refuses overflow too; in constant evaluation its throw is the error.
// expect-error-gcc: function 'void boost::throw_exception(const E&, const source_location&) [with E = std::overflow_error]'
// expect-error-clang: non-literal type 'std::overflow_error' cannot be used in a constant expression
#include "qkov/scalar/boost_integer.hpp"
constexpr qkov::checked_int256 two_to_200 = qkov::checked_int256(1) << 200;
constexpr qkov::checked_int256 bad = two_to_200 * two_to_200;
