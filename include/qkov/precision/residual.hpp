// What a high-precision validation reports: the largest residual of an identity over its
// samples, and the bound it must stay below. Validation, not proof: the residual is a
// floating-point difference at 50-100 digits; the bound is derived from the working precision
// (the unit roundoff u of the scalar) by a forward error analysis stated where it is computed.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

namespace qkov::precision {

struct residual {
    double max_residual = 0;  ///< largest |difference| / scale over the samples
    double bound = 0;         ///< what the error analysis allows
    double implied = std::numeric_limits<double>::quiet_NaN();  ///< a quantity the check yields (R5: the smallest gap)
    std::string note;         ///< what `implied` is, or other context

    std::size_t samples = 0;  ///< how many values were recorded

    /// A NaN is the worst residual there is: once recorded, max_residual stays NaN (std::max
    /// alone would drop it, and a check that computed nothing but NaN would pass).
    void record(double value)
    {
        ++samples;
        if (std::isnan(value) || std::isnan(max_residual))
            max_residual = std::numeric_limits<double>::quiet_NaN();
        else
            max_residual = std::max(max_residual, value);
    }
    /// False with no samples: a check that measured nothing has not passed.
    [[nodiscard]] bool within_bound() const { return samples > 0 && std::isfinite(max_residual) && max_residual <= bound; }
};

/// The unit roundoff u = epsilon / 2 of T: every correctly rounded + - * / has relative error <= u.
template <class T>
double unit_roundoff()
{
    return static_cast<double>(std::numeric_limits<T>::epsilon()) / 2;
}

/// Decimal digits of T, for reports.
template <class T>
int decimal_digits()
{
    return std::numeric_limits<T>::digits10;
}

/// |x| as a double (Boost.Multiprecision or built-in T).
template <class T>
double magnitude(const T& x)
{
    using std::abs;
    return static_cast<double>(abs(x));
}

} // namespace qkov::precision
