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

/// An interval operation met NaN, or an empty interval (lo > hi) was built.
[[noreturn]] inline void invalid_interval_detected()
{
    throw std::domain_error("qkov: invalid interval (NaN bound or lo > hi)");
}

/// Division by an interval that contains zero has no finite enclosure.
[[noreturn]] inline void interval_division_by_zero_detected()
{
    throw std::domain_error("qkov: interval division by an interval containing 0");
}

/// In constant evaluation, a product of finite interval ends beyond the largest double, where the
/// two evaluators would disagree (g++ refuses the multiplication unnamed, clang rounds it to
/// infinity). Not called at run time, where the enclosure [DBL_MAX, inf] holds the product.
[[noreturn]] inline void interval_overflow_in_constant_evaluation()
{
    throw std::overflow_error("qkov: an interval product overflows the largest double in constant evaluation");
}

/// A number with a denominator other than a power of two was converted to dyadic_gaussian.
[[noreturn]] inline void not_a_dyadic_number()
{
    throw std::domain_error("qkov: the number is not dyadic (its denominator is not a power of two)");
}

/// A monomial needed more real factors or phases than its capacity: raise the template arguments.
[[noreturn]] inline void symbolic_capacity_exceeded()
{
    throw std::length_error("qkov: a trig_poly monomial exceeded its capacity (MaxReals or MaxPhases)");
}

// Numbers entering the API. Each conversion from a user's number into a qkov number either keeps
// the exact value or stops here: a value outside the target's range is never wrapped or cut.

/// An integer given as a linear_form constant (a position, an offset) does not fit its 32-bit coefficient.
[[noreturn]] inline void linear_form_constant_out_of_range()
{
    throw std::out_of_range("qkov: the integer does not fit a linear_form coefficient (32-bit signed)");
}

/// A real symbol id (trig_poly::variable, symbolic_entries) outside 0 .. 65535.
[[noreturn]] inline void symbol_id_out_of_range()
{
    throw std::out_of_range("qkov: a real symbol id must lie in 0 .. 65535");
}

/// An angle id (trig_poly::phase / cos / sin, symbolic_angles' pair index) outside 0 .. 65535.
[[noreturn]] inline void angle_id_out_of_range()
{
    throw std::out_of_range("qkov: an angle id must lie in 0 .. 65535");
}

/// An integer or a double given as a dyadic_gaussian coefficient does not fit its 64-bit numerator.
[[noreturn]] inline void coefficient_out_of_range()
{
    throw std::out_of_range("qkov: the number does not fit a dyadic_gaussian coefficient (64-bit numerator)");
}

/// An index, count, lag or dimension given as a negative integer or one beyond std::size_t.
[[noreturn]] inline void index_out_of_range()
{
    throw std::out_of_range("qkov: an index, count or lag must be a non-negative integer that fits std::size_t");
}

/// A NaN or an infinity where a real number is expected (dyadic_gaussian::from_double), or an
/// infinity as a point interval(x) or as an end of interval(lo, hi) on the wrong side.
[[noreturn]] inline void not_a_finite_number()
{
    throw std::domain_error("qkov: NaN or infinity where a finite real number is expected");
}

} // namespace qkov
