// An RGB canvas for figures: pixels, filled rectangles, straight lines clipped to a rectangle,
// and PNG output through libpng.
//
// Coordinates are pixels, x to the right and y downwards, (0, 0) the top-left pixel. Drawing
// outside the canvas (or outside a given clip rectangle) is silently cut off: that is what a
// figure wants when a data line leaves the plot area.
#pragma once

#include <png.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace qkov::report {

/// An 8-bit sRGB colour.
struct rgb {
    std::uint8_t r = 0, g = 0, b = 0;
    friend constexpr bool operator==(rgb, rgb) = default;
};

inline constexpr rgb white{255, 255, 255};
inline constexpr rgb black{0, 0, 0};

/// `over` painted onto `under` with coverage 0..255 (255 = opaque); used for anti-aliased text.
constexpr rgb blend(rgb under, rgb over, std::uint8_t coverage)
{
    const auto mix = [coverage](std::uint8_t u, std::uint8_t o) {
        return static_cast<std::uint8_t>((u * (255 - coverage) + o * coverage + 127) / 255);
    };
    return {mix(under.r, over.r), mix(under.g, over.g), mix(under.b, over.b)};
}

/// A rectangle of pixels, both corners included: it holds right - left + 1 columns.
struct pixel_rect {
    int left = 0, top = 0, right = -1, bottom = -1;

    constexpr int width() const { return right - left + 1; }
    constexpr int height() const { return bottom - top + 1; }
    constexpr bool empty() const { return right < left || bottom < top; }
    constexpr bool contains(int x, int y) const { return x >= left && x <= right && y >= top && y <= bottom; }
    constexpr pixel_rect intersect(const pixel_rect& o) const
    {
        return {std::max(left, o.left), std::max(top, o.top), std::min(right, o.right), std::min(bottom, o.bottom)};
    }
    constexpr bool overlaps(const pixel_rect& o) const { return !intersect(o).empty(); }
    friend constexpr bool operator==(const pixel_rect&, const pixel_rect&) = default;
};

class raster_image {
public:
    raster_image(int width, int height, rgb background = white) : width_(width), height_(height)
    {
        if (width <= 0 || height <= 0)
            throw std::invalid_argument("qkov: raster_image needs a positive size, got " + std::to_string(width) + "x" +
                                        std::to_string(height));
        pixels_.assign(static_cast<std::size_t>(width) * static_cast<std::size_t>(height), background);
    }

    int width() const { return width_; }
    int height() const { return height_; }
    pixel_rect bounds() const { return {0, 0, width_ - 1, height_ - 1}; }

    /// The pixel at (x, y); throws std::out_of_range outside the canvas.
    rgb pixel(int x, int y) const
    {
        if (!bounds().contains(x, y))
            throw std::out_of_range("qkov: pixel (" + std::to_string(x) + ", " + std::to_string(y) +
                                    ") is outside the " + std::to_string(width_) + "x" + std::to_string(height_) +
                                    " image");
        return pixels_[index(x, y)];
    }

    /// Sets (x, y) if it lies inside the canvas; does nothing otherwise.
    void set_pixel(int x, int y, rgb colour)
    {
        if (bounds().contains(x, y)) pixels_[index(x, y)] = colour;
    }

    /// Blends `colour` with coverage 0..255 onto (x, y) if it lies inside the canvas.
    void blend_pixel(int x, int y, rgb colour, std::uint8_t coverage)
    {
        if (bounds().contains(x, y)) pixels_[index(x, y)] = blend(pixels_[index(x, y)], colour, coverage);
    }

    void fill_rect(pixel_rect area, rgb colour)
    {
        area = area.intersect(bounds());
        for (int y = area.top; y <= area.bottom; ++y)
            for (int x = area.left; x <= area.right; ++x) pixels_[index(x, y)] = colour;
    }

    /// The one-pixel border of `area`.
    void outline_rect(pixel_rect area, rgb colour)
    {
        fill_rect({area.left, area.top, area.right, area.top}, colour);
        fill_rect({area.left, area.bottom, area.right, area.bottom}, colour);
        fill_rect({area.left, area.top, area.left, area.bottom}, colour);
        fill_rect({area.right, area.top, area.right, area.bottom}, colour);
    }

    /// A straight line from (x0, y0) to (x1, y1) (pixel centres, fractional allowed), `thickness`
    /// pixels wide, with nothing drawn outside `clip` (nor outside the canvas).
    void draw_line(double x0, double y0, double x1, double y1, rgb colour, int thickness, pixel_rect clip)
    {
        clip = clip.intersect(bounds());
        if (clip.empty() || thickness <= 0) return;
        // Cut the segment to the clip rectangle widened by the pen's half width (Liang-Barsky), so
        // far-away endpoints (a log axis can map them millions of pixels out) cost nothing.
        const double pad = thickness;
        double t_enter = 0.0, t_leave = 1.0;
        const double dx = x1 - x0, dy = y1 - y0;
        const auto cut = [&](double p, double q) {  // keeps the part where p t <= q
            if (p == 0.0) return q >= 0.0;
            const double t = q / p;
            if (p < 0.0) t_enter = std::max(t_enter, t);
            else t_leave = std::min(t_leave, t);
            return t_enter <= t_leave;
        };
        if (!(cut(-dx, x0 - (clip.left - pad)) && cut(dx, (clip.right + pad) - x0) && cut(-dy, y0 - (clip.top - pad)) &&
              cut(dy, (clip.bottom + pad) - y0)))
            return;
        const double ax = x0 + t_enter * dx, ay = y0 + t_enter * dy;
        const double bx = x0 + t_leave * dx, by = y0 + t_leave * dy;
        // One square pen stamp per step along the longer direction (a DDA).
        const int steps = static_cast<int>(std::ceil(std::max(std::abs(bx - ax), std::abs(by - ay))));
        const int before = (thickness - 1) / 2, after = thickness / 2;
        for (int i = 0; i <= steps; ++i) {
            const double t = steps == 0 ? 0.0 : static_cast<double>(i) / steps;
            const int x = static_cast<int>(std::lround(ax + t * (bx - ax)));
            const int y = static_cast<int>(std::lround(ay + t * (by - ay)));
            fill_rect(pixel_rect{x - before, y - before, x + after, y + after}.intersect(clip), colour);
        }
    }

    /// Rows of r, g, b bytes, top row first: the layout libpng reads.
    const std::vector<rgb>& pixels() const { return pixels_; }

private:
    std::size_t index(int x, int y) const
    {
        return static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(x);
    }

    int width_, height_;
    std::vector<rgb> pixels_;
};

static_assert(sizeof(rgb) == 3, "raster_image hands its pixel vector to libpng as packed RGB bytes");

/// Writes `image` as an 8-bit RGB PNG; throws std::runtime_error naming `path` if that fails.
inline void write_png(const raster_image& image, const std::filesystem::path& path)
{
    // Opening the file ourselves gives the system's reason (permission, missing folder) in the error.
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "wb"), &std::fclose);
    if (!file) throw std::runtime_error("qkov: cannot write PNG file '" + path.string() + "': " + std::strerror(errno));
    png_image png;
    std::memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    png.width = static_cast<png_uint_32>(image.width());
    png.height = static_cast<png_uint_32>(image.height());
    png.format = PNG_FORMAT_RGB;
    const bool written = png_image_write_to_stdio(&png, file.get(), 0, image.pixels().data(), 0, nullptr) != 0;
    const bool closed = std::fclose(file.release()) == 0;
    if (!written || !closed) {
        const std::string reason = written ? std::string(std::strerror(errno)) : std::string(png.message);
        png_image_free(&png);
        throw std::runtime_error("qkov: writing PNG file '" + path.string() + "' failed: " + reason);
    }
}

} // namespace qkov::report
