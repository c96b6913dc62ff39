// Sequential colour maps for heatmaps, defined by a few evenly spaced anchor colours and
// interpolated in the OKLab colour space, where equal steps look like equal changes of colour
// (interpolating sRGB bytes directly gives uneven, muddy middles).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

#include "qkov/report/raster_image.hpp"

namespace qkov::report {

/// A colour in OKLab coordinates (lightness L, and the opponent axes a and b).
struct oklab {
    double l, a, b;
};

/// sRGB byte -> OKLab (Björn Ottosson's published matrices, through linear-light RGB).
inline oklab to_oklab(rgb c)
{
    const auto linear = [](std::uint8_t byte) {
        const double v = byte / 255.0;
        return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    const double r = linear(c.r), g = linear(c.g), b = linear(c.b);
    const double l_ = std::cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
    const double m_ = std::cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
    const double s_ = std::cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
    return {0.2104542553 * l_ + 0.7936177850 * m_ - 0.0040720468 * s_,
            1.9779984951 * l_ - 2.4285922050 * m_ + 0.4505937099 * s_,
            0.0259040371 * l_ + 0.7827717662 * m_ - 0.8086757660 * s_};
}

/// OKLab -> sRGB byte, clamping colours outside the sRGB gamut.
inline rgb to_rgb(oklab c)
{
    const double l_ = c.l + 0.3963377774 * c.a + 0.2158037573 * c.b;
    const double m_ = c.l - 0.1055613458 * c.a - 0.0638541728 * c.b;
    const double s_ = c.l - 0.0894841775 * c.a - 1.2914855480 * c.b;
    const double l = l_ * l_ * l_, m = m_ * m_ * m_, s = s_ * s_ * s_;
    const auto byte = [](double v) {
        v = v <= 0.0031308 ? 12.92 * v : 1.055 * std::pow(v, 1.0 / 2.4) - 0.055;
        return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
    };
    return {byte(+4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s),
            byte(-1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s),
            byte(-0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s)};
}

class colour_map {
public:
    /// Anchors evenly spaced over [0, 1]: the first at 0, the last at 1. At least two.
    explicit colour_map(std::vector<rgb> anchors) : anchors_(std::move(anchors))
    {
        if (anchors_.size() < 2) throw std::invalid_argument("qkov: a colour map needs at least two anchor colours");
        for (const rgb c : anchors_) lab_.push_back(to_oklab(c));
    }

    /// Dark blue-violet to yellow, lightness rising monotonically: viridis sampled at 0, 1/4,
    /// 1/2, 3/4 and 1. Reads in grey scale and for the common colour-vision deficiencies.
    static colour_map viridis()
    {
        return colour_map({{0x44, 0x01, 0x54}, {0x3b, 0x52, 0x8b}, {0x21, 0x91, 0x8c}, {0x5e, 0xc9, 0x62},
                           {0xfd, 0xe7, 0x25}});
    }

    /// The colour at t in [0, 1] (clamped); exactly an anchor at t = i / (anchors - 1).
    rgb at(double t) const
    {
        t = std::isnan(t) ? 0.0 : std::clamp(t, 0.0, 1.0);
        const double position = t * static_cast<double>(anchors_.size() - 1);
        const auto i = std::min(static_cast<std::size_t>(position), anchors_.size() - 2);
        const double u = position - static_cast<double>(i);
        if (u == 0.0) return anchors_[i];
        if (u == 1.0) return anchors_[i + 1];
        const oklab& p = lab_[i];
        const oklab& q = lab_[i + 1];
        return to_rgb({p.l + u * (q.l - p.l), p.a + u * (q.a - p.a), p.b + u * (q.b - p.b)});
    }

    const std::vector<rgb>& anchors() const { return anchors_; }

private:
    std::vector<rgb> anchors_;
    std::vector<oklab> lab_;
};

} // namespace qkov::report
