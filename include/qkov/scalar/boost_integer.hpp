// Boost.Multiprecision's checked fixed-width integers as exact integers for rational<I>.
//
// Use them where 64 or 128 bits overflow. They are literal types (constexpr) in Boost >= 1.81;
// their own overflow check throws std::overflow_error, which in constant evaluation is a
// compile error pointing at Boost's throw. Compile-time cost: see bench/compile_time.
#pragma once

#include <boost/multiprecision/cpp_int.hpp>

#include "qkov/scalar/integer.hpp"
#include "qkov/scalar/rational.hpp"

namespace qkov {

template <std::size_t Bits, boost::multiprecision::expression_template_option ET>
struct is_checked_integer<boost::multiprecision::number<
    boost::multiprecision::cpp_int_backend<Bits, Bits, boost::multiprecision::signed_magnitude,
                                           boost::multiprecision::checked, void>,
    ET>> : std::true_type {};

using checked_int256 = boost::multiprecision::checked_int256_t;
using checked_int512 = boost::multiprecision::checked_int512_t;
using rational256 = rational<checked_int256>;
using rational512 = rational<checked_int512>;

} // namespace qkov
