// Axis scales for figures: linear or log10, the mapping of a value to a fraction of the axis,
// and "nice" tick positions with their labels (1, 2, 5 x 10^k steps; powers of ten on log axes).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace qkov::report {

enum class scale_kind { linear, log10 };

struct axis_tick {
    double value;
    std::string label;  // empty for an unlabelled (minor) tick
    bool major;
};

/// 10^k as the double nearest to it. For |k| <= 22 both 10^|k| and the one operation on it are
/// exact or correctly rounded, so the tick at 10^-3 is exactly the literal 1e-3.
inline double power_of_ten(int k)
{
    if (k < -22 || k > 22) return std::pow(10.0, k);
    double p = 1.0;
    for (int i = 0; i < std::abs(k); ++i) p *= 10.0;
    return k >= 0 ? p : 1.0 / p;
}

/// An integer exponent in Unicode superscripts, e.g. -3 -> "⁻³".
inline std::string superscript(int k)
{
    static const char* const digits[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    const std::string plain = std::to_string(k);
    std::string out;
    for (const char c : plain) out += c == '-' ? "⁻" : digits[c - '0'];
    return out;
}

/// Printed digits without trailing zeros: "1.50" -> "1.5", "2.0" -> "2".
inline std::string trim_decimal_zeros(std::string s)
{
    if (s.find('.') == std::string::npos) return s;
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
    return s;
}

class axis_scale {
public:
    /// The axis shows `first` at fraction 0 (left or bottom) and `last` at fraction 1; last < first
    /// makes a reversed axis (matrix rows counted downwards).
    axis_scale(scale_kind kind, double first, double last) : kind_(kind), first_(first), last_(last)
    {
        if (!std::isfinite(first) || !std::isfinite(last) || first == last)
            throw std::invalid_argument("qkov: an axis needs two different finite ends, got " + std::to_string(first) +
                                        " and " + std::to_string(last));
        if (kind == scale_kind::log10 && (first <= 0.0 || last <= 0.0))
            throw std::invalid_argument("qkov: a log axis needs positive ends, got " + std::to_string(first) + " and " +
                                        std::to_string(last));
    }

    /// The range a plot axis shows for data in [data_min, data_max]: linear axes add 4% each
    /// side, log axes extend to whole decades (so at least two powers of ten are labelled).
    /// Equal data still get an axis of positive length, centred on the value.
    static axis_scale fitted(scale_kind kind, double data_min, double data_max)
    {
        auto [lo, hi] = widened(kind, data_min, data_max);
        if (kind == scale_kind::linear) {
            const double pad = 0.04 * (hi - lo);
            return {kind, lo - pad, hi + pad};
        }
        return {kind, power_of_ten(static_cast<int>(std::floor(std::log10(lo) + 1e-9))),
                power_of_ten(static_cast<int>(std::ceil(std::log10(hi) - 1e-9)))};
    }

    /// Exactly [data_min, data_max] (a colour bar), widened only when the two are equal.
    static axis_scale spanning(scale_kind kind, double data_min, double data_max)
    {
        const auto [lo, hi] = widened(kind, data_min, data_max);
        return {kind, lo, hi};
    }

    scale_kind kind() const { return kind_; }
    double first() const { return first_; }
    double last() const { return last_; }

    /// Where `value` sits along the axis: 0 at first(), 1 at last(), outside [0, 1] beyond them.
    double fraction(double value) const
    {
        if (kind_ == scale_kind::linear) return (value - first_) / (last_ - first_);
        return (std::log10(value) - std::log10(first_)) / (std::log10(last_) - std::log10(first_));
    }

    /// Ticks inside the axis range, in increasing value: at most `max_labels` labelled ones.
    /// `integers_only` keeps linear ticks on whole numbers (matrix row and column indices).
    std::vector<axis_tick> ticks(int max_labels = 7, bool integers_only = false) const
    {
        const double lo = std::min(first_, last_), hi = std::max(first_, last_);
        return kind_ == scale_kind::linear ? linear_ticks(lo, hi, std::max(max_labels, 2), integers_only)
                                           : log_ticks(lo, hi, std::max(max_labels, 2));
    }

private:
    static std::pair<double, double> widened(scale_kind kind, double lo, double hi)
    {
        if (lo > hi) std::swap(lo, hi);
        if (lo != hi) return {lo, hi};
        if (kind == scale_kind::log10) return {lo / std::sqrt(10.0), lo * std::sqrt(10.0)};
        const double half = lo == 0.0 ? 1.0 : std::abs(lo) / 10.0;
        return {lo - half, lo + half};
    }

    // The smallest of 1, 2, 5 x 10^k that is at least `raw`.
    static double nice_step(double raw)
    {
        const double decade = power_of_ten(static_cast<int>(std::floor(std::log10(raw))));
        for (const double m : {1.0, 2.0, 5.0})
            if (m * decade >= raw * (1 - 1e-9)) return m * decade;
        return 10.0 * decade;
    }

    static std::vector<axis_tick> linear_ticks(double lo, double hi, int max_labels, bool integers_only)
    {
        double step = nice_step((hi - lo) / (max_labels - 1));
        if (integers_only) step = std::max(step, 1.0);
        const auto k_first = static_cast<long long>(std::ceil(lo / step - 1e-9));
        const auto k_last = static_cast<long long>(std::floor(hi / step + 1e-9));
        std::vector<double> values;
        for (long long k = k_first; k <= k_last; ++k) values.push_back(static_cast<double>(k) * step);
        double largest = 0.0;
        for (const double v : values) largest = std::max(largest, std::abs(v));
        // One notation per axis: plain decimals unless the numbers are very large or very small.
        const bool scientific = largest >= 1e5 || (largest > 0.0 && largest < 1e-3);
        const int step_exponent = static_cast<int>(std::floor(std::log10(step) + 1e-9));
        std::vector<axis_tick> ticks;
        for (double v : values) {
            if (std::abs(v) < step * 1e-9) v = 0.0;  // k * step can land a rounding error away from 0
            ticks.push_back({v, linear_label(v, step_exponent, scientific), true});
        }
        return ticks;
    }

    static std::string linear_label(double v, int step_exponent, bool scientific)
    {
        char buffer[64];
        if (!scientific || v == 0.0) {
            std::snprintf(buffer, sizeof buffer, "%.*f", std::max(0, -step_exponent), v);
            return buffer;
        }
        const int exponent = static_cast<int>(std::floor(std::log10(std::abs(v)) + 1e-9));
        std::snprintf(buffer, sizeof buffer, "%.*f", std::max(0, exponent - step_exponent), v / power_of_ten(exponent));
        return trim_decimal_zeros(buffer) + "×10" + superscript(exponent);
    }

    static std::vector<axis_tick> log_ticks(double lo, double hi, int max_labels)
    {
        const int k_floor = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
        const int k_first = static_cast<int>(std::ceil(std::log10(lo) - 1e-9));
        const int k_last = static_cast<int>(std::floor(std::log10(hi) + 1e-9));
        const int decades = k_last - k_first + 1;
        // Label every stride-th power of ten so that at most max_labels are labelled
        // (a nice stride, 1 2 5 10 20 ..., so the labels read 10⁻⁴⁰ 10⁻³⁰ ..., not 10⁻⁴² 10⁻³⁵ ...).
        const int stride =
            decades <= max_labels ? 1 : static_cast<int>(std::lround(nice_step(static_cast<double>(decades) / max_labels)));
        const auto inside = [&](double v) { return v >= lo * (1 - 1e-12) && v <= hi * (1 + 1e-12); };
        std::vector<axis_tick> ticks;
        for (int k = k_first; k <= k_last; ++k)
            if (((k % stride) + stride) % stride == 0) ticks.push_back({power_of_ten(k), "10" + superscript(k), true});
        // Minor ticks at 2..9 x 10^k where decades are wide enough to show them; labelled (2 and 5
        // only) when fewer than two powers of ten are in range, so the axis can still be read.
        const bool label_minor = ticks.size() < 2;
        if (stride == 1 && k_last - k_floor <= 8)
            for (int k = k_floor; k <= k_last; ++k)
                for (int m = 2; m <= 9; ++m) {
                    const double v = m * power_of_ten(k);
                    if (!inside(v)) continue;
                    std::string label;
                    if (label_minor && (m == 2 || m == 5))
                        label = k >= 0 && k < 5 ? trim_decimal_zeros(std::to_string(v))
                                                : std::to_string(m) + "×10" + superscript(k);
                    ticks.push_back({v, label, false});
                }
        std::sort(ticks.begin(), ticks.end(), [](const axis_tick& a, const axis_tick& b) { return a.value < b.value; });
        return ticks;
    }

    scale_kind kind_;
    double first_, last_;
};

} // namespace qkov::report
