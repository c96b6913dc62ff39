// Norms that stay exact: the squared Frobenius norm (the norm itself is usually irrational, so
// exact statements compare squares, e.g. ||M - I||_F^2 >= D - d instead of ||M - I||_F >= sqrt(D - d)).
#pragma once

#include <cstddef>

#include "qkov/matrix/matrix.hpp"

namespace qkov {

namespace detail {
template <class T>
constexpr auto squared_magnitude(const T& x)
{
    if constexpr (requires { x.norm_squared(); })
        return x.norm_squared();  // |a + b i|^2 = a^2 + b^2 for Gaussian numbers
    else
        return x * x;
}
} // namespace detail

template <class T, std::size_t R, std::size_t C>
constexpr auto frobenius_norm_squared(const matrix<T, R, C>& a)
{
    decltype(detail::squared_magnitude(a(0, 0))) sum(0);
    for (const auto& x : a.entries()) sum += detail::squared_magnitude(x);
    return sum;
}

} // namespace qkov
