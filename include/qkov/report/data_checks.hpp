// Checks of figure data before anything is drawn: a NaN or a non-positive value on a log axis
// would otherwise give a silently wrong picture. Each error names the figure's data and the index.
#pragma once

#include <cmath>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>

#include "qkov/report/axis_scale.hpp"

namespace qkov::report {

/// A value as the error messages print it (full precision, so a user can find it).
inline std::string printed_value(double v)
{
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.17g", v);
    return buffer;
}

/// Throws std::invalid_argument unless every value is finite. `what` names the data, e.g.
/// "series 'fp32' y"; `position(i)` turns an index into the part after it, e.g. "[17]".
template <typename Position>
void require_finite(std::span<const double> values, const std::string& what, Position position)
{
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]))
            throw std::invalid_argument("qkov: " + what + position(i) + " is " + printed_value(values[i]) +
                                        "; figures need finite data");
}

/// Throws std::invalid_argument if a value that a log scale must show is zero or negative.
template <typename Position>
void require_positive_on_log(std::span<const double> values, scale_kind scale, const std::string& what,
                             Position position)
{
    if (scale != scale_kind::log10) return;
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!(values[i] > 0.0))
            throw std::invalid_argument("qkov: " + what + position(i) + " is " + printed_value(values[i]) +
                                        ", which a log scale cannot show (values must be > 0)");
}

/// "[i]": the position printer for plain sequences.
inline std::string index_suffix(std::size_t i)
{
    // Appended piece by piece: g++ 12 reports a false -Wrestrict on "[" + std::to_string(i) + "]".
    std::string suffix = "[";
    suffix += std::to_string(i);
    suffix += ']';
    return suffix;
}

} // namespace qkov::report
