// Which scalars are exact, and of what kind. Exact algorithms (rank, determinant, inverse) accept
// only these: over double a rank needs a tolerance and is not a proof, so it lives elsewhere.
#pragma once

#include <type_traits>

#include "qkov/scalar/integer.hpp"

namespace qkov {

/// Specialized to true by each exact field type (rational, Gaussian rational).
template <class F>
struct is_exact_field : std::false_type {};

template <class F>
concept exact_field = is_exact_field<std::remove_cvref_t<F>>::value;

/// Exact integers and exact fields: where == is exact and every operation is checked.
template <class T>
concept exact_scalar = exact_integer<T> || exact_field<T>;

} // namespace qkov
