// Exact elimination: rank, determinant, null-space dimension and inverse.
//
// One row-echelon routine serves rank and determinant for every exact scalar; only the update
// of an entry depends on the arithmetic:
// - over checked integers, fraction-free (Bareiss): every division is exact (Sylvester's
//   identity: after k pivots each entry is a (k+1) x (k+1) minor), so integer matrices never leave
//   the integers and need no gcds; each division is still verified;
// - over fields (rationals), ordinary Gaussian elimination: Bareiss over Q would carry minors of
//   a rational matrix, whose denominators multiply (measured: 3-5x slower at 24 x 24).
// The inverse needs a field and uses Gauss-Jordan elimination.
#pragma once

#include <cstddef>
#include <limits>
#include <utility>

#include "qkov/matrix/matrix.hpp"
#include "qkov/scalar/errors.hpp"
#include "qkov/scalar/exact.hpp"

namespace qkov {

namespace detail {
template <class T, std::size_t R, std::size_t C>
constexpr void swap_rows(matrix<T, R, C>& m, std::size_t a, std::size_t b)
{
    for (std::size_t j = 0; j < C; ++j) std::swap(m(a, j), m(b, j));
}

// The elimination runs on checked<I> entries stripped to native I: g++'s constant evaluator pays
// per function call, and the wrapper's operators cost about 3x the time (measured on a 64 x 64
// rank). The checks stay: the step below uses the same overflow builtins.
template <class T>
struct elimination_entry {
    using type = T;
    static constexpr const T& strip(const T& x) { return x; }
    static constexpr const T& wrap(const T& x) { return x; }
};
template <native_signed_integer I>
struct elimination_entry<checked<I>> {
    using type = I;
    static constexpr I strip(const checked<I>& x) { return x.value(); }
    static constexpr checked<I> wrap(I x) { return checked<I>(x); }
};

/// One Bareiss update: (pivot * a - below * b) / previous_pivot, exactly.
template <class U>
constexpr U bareiss_update(const U& pivot, const U& a, const U& below, const U& b, const U& previous_pivot)
{
    if constexpr (native_signed_integer<U>) {
        U x{}, y{}, z{};
        if (__builtin_mul_overflow(pivot, a, &x) || __builtin_mul_overflow(below, b, &y) ||
            __builtin_sub_overflow(x, y, &z))
            integer_overflow_detected();
        if (previous_pivot == 1) return z;
        if (previous_pivot == -1) {
            if (z == std::numeric_limits<U>::min()) integer_overflow_detected();
            return -z;
        }
        const U quotient = z / previous_pivot;
        if (quotient * previous_pivot != z) inexact_integer_division_detected();
        return quotient;
    } else {
        return exact_quotient(U(pivot * a - below * b), previous_pivot);
    }
}
} // namespace detail

template <class T, std::size_t R, std::size_t C>
struct echelon_form {
    matrix<T, R, C> reduced;  ///< row echelon form (fraction-free for integers, Gaussian for fields)
    std::size_t rank = 0;
    T pivot_product = T(1);  ///< Bareiss: the last pivot; Gauss: the product of pivots
    bool odd_row_swaps = false;
};

/// Row echelon form with row pivoting: Bareiss over integers, Gaussian elimination over fields
/// (see the top of this file). A column without a pivot is skipped; for Bareiss that keeps every
/// division exact because the elimination restricted to the pivot columns is ordinary Bareiss.
template <exact_scalar T, std::size_t R, std::size_t C>
constexpr echelon_form<T, R, C> fraction_free_echelon(const matrix<T, R, C>& a)
{
    using entry = detail::elimination_entry<T>;
    using U = typename entry::type;
    matrix<U, R, C> m;
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) m(i, j) = entry::strip(a(i, j));

    echelon_form<T, R, C> out;
    U previous_pivot(1);
    std::size_t r = 0;
    for (std::size_t c = 0; c < C && r < R; ++c) {
        std::size_t p = r;
        while (p < R && m(p, c) == U(0)) ++p;
        if (p == R) continue;
        if (p != r) {
            detail::swap_rows(m, p, r);
            out.odd_row_swaps = !out.odd_row_swaps;
        }
        const U pivot = m(r, c);
        for (std::size_t i = r + 1; i < R; ++i) {
            const U below = m(i, c);
            if constexpr (exact_field<T>) {
                if (below == U(0)) continue;  // (Bareiss must still rescale such a row)
                const U factor = below / pivot;
                for (std::size_t j = c + 1; j < C; ++j) m(i, j) -= factor * m(r, j);
            } else {
                for (std::size_t j = c + 1; j < C; ++j)
                    m(i, j) = detail::bareiss_update(pivot, m(i, j), below, m(r, j), previous_pivot);
            }
            m(i, c) = U(0);
        }
        if constexpr (exact_field<T>)
            previous_pivot *= pivot;
        else
            previous_pivot = pivot;
        ++r;
    }
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) out.reduced(i, j) = entry::wrap(m(i, j));
    out.rank = r;
    out.pivot_product = entry::wrap(previous_pivot);
    return out;
}

template <exact_scalar T, std::size_t R, std::size_t C>
constexpr std::size_t rank(const matrix<T, R, C>& a)
{
    return fraction_free_echelon(a).rank;
}

/// dim { x : A x = 0 } = C - rank(A).
template <exact_scalar T, std::size_t R, std::size_t C>
constexpr std::size_t null_space_dimension(const matrix<T, R, C>& a)
{
    return C - rank(a);
}

template <exact_scalar T, std::size_t R, std::size_t C>
constexpr T determinant(const matrix<T, R, C>& a)
{
    static_assert(shapes_must_fit<op::square, shape<R, C>, shape<R, C>, R == C>::value);
    const auto e = fraction_free_echelon(a);
    if (e.rank < R) return T(0);
    return e.odd_row_swaps ? T(-e.pivot_product) : e.pivot_product;
}

/// The exact inverse over a field. A singular matrix calls singular_matrix_has_no_inverse():
/// a compile error in constant evaluation, std::domain_error at run time.
template <class T, std::size_t N, std::size_t C>
constexpr matrix<T, N, N> inverse(const matrix<T, N, C>& a)
{
    static_assert(shapes_must_fit<op::square, shape<N, C>, shape<N, C>, N == C>::value);
    static_assert(exact_field<T>,
                  "qkov: inverse() needs an exact field scalar (rational, Gaussian rational); "
                  "convert integer matrices first with matrix_cast<rational<I>>(m)");
    matrix<T, N, N> inv;
    if constexpr (N == C) {
        matrix<T, N, N> m = a;
        inv = matrix<T, N, N>::identity();
        for (std::size_t c = 0; c < N; ++c) {
            std::size_t p = c;
            while (p < N && m(p, c) == T(0)) ++p;
            if (p == N) singular_matrix_has_no_inverse();
            if (p != c) {
                detail::swap_rows(m, p, c);
                detail::swap_rows(inv, p, c);
            }
            const T scale = T(1) / m(c, c);
            for (std::size_t j = 0; j < N; ++j) {
                m(c, j) *= scale;
                inv(c, j) *= scale;
            }
            for (std::size_t i = 0; i < N; ++i) {
                if (i == c || m(i, c) == T(0)) continue;
                const T factor = m(i, c);
                for (std::size_t j = 0; j < N; ++j) {
                    m(i, j) -= factor * m(c, j);
                    inv(i, j) -= factor * inv(c, j);
                }
            }
        }
    }
    return inv;
}

} // namespace qkov
