// Boost's checked 256-bit integer refuses overflow too; in constant evaluation its throw is the error.
// expect-error: function 'void boost::throw_exception(const E&, const source_location&) [with E = std::overflow_error]'
#include "qkov/scalar/boost_integer.hpp"
constexpr qkov::checked_int256 two_to_200 = qkov::checked_int256(1) << 200;
constexpr qkov::checked_int256 bad = two_to_200 * two_to_200;
