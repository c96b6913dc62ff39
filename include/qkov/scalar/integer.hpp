// What qkov accepts as an exact integer, and the few integer algorithms exact scalars need.
//
// Only *checked* integers are accepted: qkov::checked<native> or a type registered through
// is_checked_integer (see boost_integer.hpp for Boost.Multiprecision's checked fixed-width
// cpp_int). A plain `long long` is refused at compile time, because its overflow would be
// silent at run time.
#pragma once

#include <type_traits>

#include "qkov/scalar/checked.hpp"

namespace qkov {

template <class I>
struct is_checked_integer : std::false_type {};

template <native_signed_integer I>
struct is_checked_integer<checked<I>> : std::true_type {};

template <class I>
concept exact_integer = is_checked_integer<std::remove_cvref_t<I>>::value;

template <exact_integer I>
constexpr I abs(const I& a)
{
    return a < I(0) ? I(-a) : a;
}

/// Greatest common divisor, always >= 0; gcd(0, 0) == 0.
template <exact_integer I>
constexpr I gcd(I a, I b)
{
    a = abs(a);
    b = abs(b);
    while (b != I(0)) {
        I remainder = a % b;  // named: g++ 12 cannot constant-evaluate % on some temporaries
        a = b;
        b = remainder;
    }
    return a;
}

/// The same on the native values of checked integers: Euclid cannot overflow once both are made
/// non-negative, and g++'s constant evaluator runs the raw loop several times faster.
template <native_signed_integer I>
constexpr checked<I> gcd(checked<I> a, checked<I> b)
{
    I x = abs(a).value();  // abs of the minimum overflows, and is reported as such
    I y = abs(b).value();
    while (y != 0) {
        I remainder = x % y;
        x = y;
        y = remainder;
    }
    return checked<I>(x);
}

/// a / b where b must divide a; a remainder means a broken invariant and is reported.
template <exact_integer I>
constexpr I exact_quotient(const I& a, const I& b)
{
    I quotient = a / b;
    I back = quotient * b;
    if (back != a) inexact_integer_division_detected();
    return quotient;
}

} // namespace qkov
