// The native integer types a user may hand to qkov, and the one exact range test every entry
// point applies before storing such an integer in a narrower field.
//
// __int128 and unsigned __int128 are named explicitly: under strict -std=c++20 they are not
// std::integral (nor is_signed, nor numeric_limits-specialized), so a plain std::integral
// constraint would let them fall through to some other conversion (to double, say) unseen.
#pragma once

#include <concepts>
#include <cstddef>
#include <type_traits>

#include "qkov/scalar/errors.hpp"

namespace qkov {

/// Native signed integers, including __int128 (which std::is_integral omits in strict C++ modes).
template <class I>
concept native_signed_integer =
    (std::is_integral_v<I> && std::is_signed_v<I> && !std::same_as<I, bool>) ||
    std::same_as<std::remove_cv_t<I>, __int128>;

/// Any native integer except bool, as a source of conversions (range-checked on the way in).
template <class J>
concept native_integer = native_signed_integer<J> || (std::is_integral_v<J> && !std::same_as<J, bool>) ||
                         std::same_as<std::remove_cv_t<J>, unsigned __int128>;

/// Signedness that also holds for __int128 in strict modes (where std::is_signed_v is false for it).
template <native_integer N>
inline constexpr bool is_signed_native = static_cast<N>(-1) < static_cast<N>(0);

/// Whether v < 0, written so that an unsigned v raises no "always false" warning.
template <native_integer N>
constexpr bool is_negative(N v)
{
    if constexpr (is_signed_native<N>)
        return v < static_cast<N>(0);
    else
        return false;
}

/// Whether v has the same value as a To: the overflow builtins compare exact mathematical values
/// across signedness and widths (__int128 included), so this is the exact test, no casts involved.
template <native_integer To, native_integer From>
constexpr bool fits_in(From v)
{
    To r{};
    return !__builtin_add_overflow(v, From{0}, &r);
}

/// A non-negative integer of any type as a std::size_t (an index, a count, a lag, a dimension);
/// a negative one is refused by name instead of becoming a huge size_t.
template <native_integer N>
constexpr std::size_t index_value(N k)
{
    if (!fits_in<std::size_t>(k)) index_out_of_range();
    return static_cast<std::size_t>(k);
}

} // namespace qkov
