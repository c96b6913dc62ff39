// Checks of the tool's numeric options, run by CLI11 on the text before it is converted.
//
// CLI11 converts "-1" into a std::size_t as 18446744073709551615, accepts "nan" and "inf" for a
// double, and its Range check calls "abc" "not in range". These validators read the text
// themselves and say what is wrong with it: not a number, not finite, or outside the accepted
// range (CLI11 puts the option's name in front of the message).
#pragma once

#include <CLI/CLI.hpp>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace qkov::app {

inline std::string range_text(double lo, double hi, bool lo_open)
{
    return std::string(lo_open ? "(" : "[") + CLI::detail::to_string(lo) + ", " + CLI::detail::to_string(hi) + "]";
}

/// An integer in [lo, hi], written in decimal digits.
inline CLI::Validator integer_in(std::int64_t lo, std::int64_t hi)
{
    const std::string accepted = "an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
    return CLI::Validator(
        [lo, hi, accepted](std::string& text) -> std::string {
            std::int64_t value = 0;
            const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (error == std::errc::result_out_of_range) return "'" + text + "' is out of range, expected " + accepted;
            if (error != std::errc() || end != text.data() + text.size()) return "'" + text + "' is not an integer, expected " + accepted;
            if (value < lo || value > hi) return text + " is out of range, expected " + accepted;
            return {};
        },
        accepted);
}

/// A finite number in [lo, hi], or (lo, hi] when lo_open.
inline CLI::Validator finite_in(double lo, double hi, bool lo_open = false)
{
    const std::string accepted = "a finite number in " + range_text(lo, hi, lo_open);
    return CLI::Validator(
        [lo, hi, lo_open, accepted](std::string& text) -> std::string {
            char* end = nullptr;
            errno = 0;
            const double value = text.empty() ? 0 : std::strtod(text.c_str(), &end);
            if (text.empty() || end != text.c_str() + text.size()) return "'" + text + "' is not a number, expected " + accepted;
            if (!std::isfinite(value)) return "'" + text + "' is not finite, expected " + accepted;
            if (errno == ERANGE) return "'" + text + "' is not representable as a double, expected " + accepted;
            if (value > hi || value < lo || (lo_open && value == lo)) return text + " is out of range, expected " + accepted;
            return {};
        },
        accepted);
}

} // namespace qkov::app
