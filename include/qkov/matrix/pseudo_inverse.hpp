// The Moore-Penrose pseudo-inverse of a full-rank matrix, exactly:
//   full column rank: A^+ = (A^H A)^-1 A^H   (then A^+ A = I)
//   full row rank:    A^+ = A^H (A A^H)^-1   (then A A^+ = I)
// A^H is the conjugate transpose (the transpose over rationals; over Gaussian rationals the
// transpose alone would give a wrong answer, or a singular A^T A for A = [1; i]).
// Rank-deficient input calls pseudo_inverse_needs_full_rank(): the general case would need an
// SVD, which has no exact form.
#pragma once

#include <cstddef>

#include "qkov/matrix/elimination.hpp"
#include "qkov/matrix/matrix.hpp"
#include "qkov/scalar/errors.hpp"

namespace qkov {

template <class T, std::size_t R, std::size_t C>
constexpr matrix<T, C, R> pseudo_inverse(const matrix<T, R, C>& a)
{
    static_assert(exact_field<T>,
                  "qkov: pseudo_inverse() needs an exact field scalar (rational); convert integer "
                  "matrices first with matrix_cast<rational<I>>(m)");
    const matrix<T, C, R> at = adjoint(a);
    const std::size_t r = rank(a);
    if (r == C) return inverse(at * a) * at;
    if (r == R) return at * inverse(a * at);
    pseudo_inverse_needs_full_rank();
}

} // namespace qkov
