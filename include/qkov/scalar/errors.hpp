// Error reporting that works the same way in constant evaluation and at run time.
//
// Each failure calls a *named*, deliberately non-constexpr function. In constant evaluation the
// call itself is the compile error, and the compiler prints the function's name, so the name is
// the diagnostic (a thrown string is not shown by g++). At run time the same function throws.
// Keep the names descriptive: tests match on them.
#pragma once

#include <stdexcept>

namespace qkov {

/// Checked integer arithmetic left the range of its integer type.
[[noreturn]] inline void integer_overflow_detected()
{
    throw std::overflow_error("qkov: integer overflow in checked exact arithmetic");
}

/// An exact division by zero: checked integers, rationals (also a zero denominator), Gaussian rationals.
[[noreturn]] inline void division_by_zero_detected()
{
    throw std::domain_error("qkov: division by zero in exact arithmetic");
}

/// inverse() was asked for a matrix whose determinant is zero.
[[noreturn]] inline void singular_matrix_has_no_inverse()
{
    throw std::domain_error("qkov: the matrix is singular and has no inverse");
}

/// pseudo_inverse() handles full-rank matrices only (full row or full column rank).
[[noreturn]] inline void pseudo_inverse_needs_full_rank()
{
    throw std::domain_error(
        "qkov: pseudo_inverse needs full column rank ((A^T A)^-1 A^T) or full row rank "
        "(A^T (A A^T)^-1); this matrix is rank-deficient");
}

/// An exact integer division that must have no remainder had one (a broken invariant).
[[noreturn]] inline void inexact_integer_division_detected()
{
    throw std::logic_error("qkov: an exact integer division left a remainder");
}

} // namespace qkov
