// Printing certified numbers (run time). A bound printed in decimal must stay a bound: the lower
// end is rounded down and the upper end up, never to nearest, so "[1.0831683383, 1.0831683384]"
// still encloses the number the proof certified.
#pragma once

#include <cstdio>
#include <ostream>
#include <stdexcept>
#include <string>

#include "qkov/scalar/certified.hpp"

namespace qkov {

enum class decimal_rounding { down, up };

/// x with `digits` significant decimal digits, rounded toward -inf (down) or +inf (up).
inline std::string to_decimal(double x, int digits, decimal_rounding rounding)
{
    if (digits < 1 || digits > 30) throw std::invalid_argument("qkov: to_decimal prints 1 to 30 significant digits");
    if (x != x) throw std::invalid_argument("qkov: to_decimal of NaN");
    if (x == 0.0 || x - x != 0.0) {  // zero and infinities print exactly
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%g", x);
        return buffer;
    }
    // glibc prints the exact binary value's decimal expansion; 800 digits is all a double has,
    // so truncating this string is exact truncation toward zero.
    char exact[1100];
    std::snprintf(exact, sizeof exact, "%.800e", x < 0 ? -x : x);
    std::string s(exact);
    const std::size_t e_at = s.find('e');
    std::string mantissa = s.substr(0, 1);
    mantissa.append(s, 2, e_at - 2);  // the digits, without the point
    int exponent = std::stoi(s.substr(e_at + 1));
    bool dropped_nonzero = mantissa.find_first_not_of('0', static_cast<std::size_t>(digits)) != std::string::npos;
    mantissa.resize(static_cast<std::size_t>(digits));
    // Truncation moves toward zero: right for down on positives and up on negatives; otherwise
    // step one unit in the last digit away from zero if anything nonzero was dropped.
    const bool away_from_zero = (x > 0) == (rounding == decimal_rounding::up);
    if (away_from_zero && dropped_nonzero) {
        int i = digits - 1;
        while (i >= 0 && mantissa[static_cast<std::size_t>(i)] == '9') mantissa[static_cast<std::size_t>(i--)] = '0';
        if (i >= 0) {
            ++mantissa[static_cast<std::size_t>(i)];
        } else {  // 9.99..9 -> 10.0..0
            mantissa.insert(mantissa.begin(), '1');
            mantissa.pop_back();
            ++exponent;
        }
    }
    // Appended piece by piece: g++ 12 reports a false -Wrestrict on string operator+ chains.
    std::string out = x < 0 ? "-" : "";
    out.push_back(mantissa[0]);
    if (digits > 1) {
        out.push_back('.');
        out.append(mantissa, 1);
    }
    if (exponent != 0) {
        out.push_back('e');
        out.append(std::to_string(exponent));
    }
    return out;
}

/// "[lower, upper]" with 12 significant digits, rounded outwards.
inline std::ostream& operator<<(std::ostream& out, const certified& value)
{
    return out << "[" << to_decimal(value.lower, 12, decimal_rounding::down) << ", "
               << to_decimal(value.upper, 12, decimal_rounding::up) << "]";
}

} // namespace qkov
