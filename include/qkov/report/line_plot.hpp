// Line plots: several named series of (x, y) points on linear or log10 axes, with optional
// markers, a legend, axis titles and a figure title, written as PNG.
//
//   qkov::report::line_plot plot({.title = "RoPE error", .x_label = "position", .y_label = "max |error|",
//                                 .x_scale = qkov::report::scale_kind::log10,
//                                 .y_scale = qkov::report::scale_kind::log10});
//   plot.add_series("fp32", positions, errors_fp32).add_series("bf16", positions, errors_bf16);
//   plot.save("rope_error.png");
#pragma once

#include <array>
#include <cmath>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/report/axis_scale.hpp"
#include "qkov/report/data_checks.hpp"
#include "qkov/report/figure_frame.hpp"
#include "qkov/report/raster_image.hpp"
#include "qkov/report/text_renderer.hpp"

namespace qkov::report {

/// Series colours when none is given: the Okabe-Ito palette, distinguishable with colour-blindness.
inline constexpr std::array<rgb, 7> series_palette{
    rgb{0, 114, 178},   // blue
    rgb{213, 94, 0},    // vermillion
    rgb{0, 158, 115},   // bluish green
    rgb{204, 121, 167}, // reddish purple
    rgb{230, 159, 0},   // orange
    rgb{86, 180, 233},  // sky blue
    rgb{0, 0, 0},       // black
};

struct series_style {
    std::optional<rgb> colour{};  // default: the next palette colour
    int line_width = 2;         // pixels; 0 draws no line (markers only)
    bool markers = false;       // a dot at every data point
    bool segments = false;      // lines between points 0-1, 2-3, ... only: many separate edges as one series (a graph)
    bool in_legend = true;      // false: left out of the legend (points that only widen the axes, say)
};

enum class legend_position { best, upper_left, upper_right, lower_left, lower_right, none };

struct line_plot_options {
    std::string title{}, x_label{}, y_label{};
    scale_kind x_scale = scale_kind::linear, y_scale = scale_kind::linear;
    int width = 800, height = 560;
    legend_position legend = legend_position::best;  // best: the inside corner covering fewest data
    std::filesystem::path font = default_font_path();
};

class line_plot {
public:
    explicit line_plot(line_plot_options options = {}) : options_(std::move(options)) {}

    /// Adds a series; throws std::invalid_argument naming it if it is empty, x and y differ in
    /// length, a value is NaN or infinite, or a value on a log axis is not positive.
    line_plot& add_series(std::string name, std::vector<double> x, std::vector<double> y, series_style style = {})
    {
        const std::string what = "line plot series '" + name + "' ";
        if (x.empty() || y.empty())
            throw std::invalid_argument("qkov: " + what + "is empty (x has " + std::to_string(x.size()) +
                                        " values, y has " + std::to_string(y.size()) + ")");
        if (x.size() != y.size())
            throw std::invalid_argument("qkov: " + what + "has " + std::to_string(x.size()) + " x values but " +
                                        std::to_string(y.size()) + " y values");
        require_finite(x, what + "x", index_suffix);
        require_finite(y, what + "y", index_suffix);
        require_positive_on_log(x, options_.x_scale, what + "x", index_suffix);
        require_positive_on_log(y, options_.y_scale, what + "y", index_suffix);
        if (!style.colour) style.colour = series_palette[series_.size() % series_palette.size()];
        series_.push_back({std::move(name), std::move(x), std::move(y), style});
        return *this;
    }

    /// The figure in memory; throws std::logic_error if no series was added.
    rendered_figure render() const
    {
        if (series_.empty()) throw std::logic_error("qkov: line plot '" + options_.title + "' has no series to draw");
        text_renderer text(options_.font);
        const axis_scale x_scale = fitted_scale(options_.x_scale, &plotted_series::x);
        const axis_scale y_scale = fitted_scale(options_.y_scale, &plotted_series::y);
        const auto x_ticks = x_scale.ticks(8), y_ticks = y_scale.ticks(7);

        const int left = figure_style::padding + axis_margin(text, axis_side::left, y_ticks, options_.y_label);
        const int bottom = figure_style::padding + axis_margin(text, axis_side::bottom, x_ticks, options_.x_label);
        const int top = figure_style::padding + title_margin(text, options_.title) + figure_style::gap;
        const int right = figure_style::padding + widest_label(text, x_ticks) / 2;  // room for the last x label
        const pixel_rect area{left, top, options_.width - 1 - right, options_.height - 1 - bottom};
        if (area.width() < 50 || area.height() < 50)
            throw std::invalid_argument("qkov: line plot '" + options_.title + "': " + std::to_string(options_.width) +
                                        "x" + std::to_string(options_.height) + " pixels leave no room for the data");

        rendered_figure figure{raster_image(options_.width, options_.height), area, {}};
        raster_image& image = figure.image;
        draw_grid(image, area, axis_side::bottom, x_scale, x_ticks);
        draw_grid(image, area, axis_side::left, y_scale, y_ticks);
        for (const auto& s : series_) {
            const auto px = [&](std::size_t i) { return axis_pixel(area, axis_side::bottom, x_scale.fraction(s.x[i])); };
            const auto py = [&](std::size_t i) { return axis_pixel(area, axis_side::left, y_scale.fraction(s.y[i])); };
            if (s.style.line_width > 0)
                for (std::size_t i = 0; i + 1 < s.x.size(); i += s.style.segments ? 2 : 1)
                    image.draw_line(px(i), py(i), px(i + 1), py(i + 1), *s.style.colour, s.style.line_width, area);
            if (s.style.markers || s.x.size() == 1)  // a single point would be invisible as a line
                for (std::size_t i = 0; i < s.x.size(); ++i) draw_marker(image, px(i), py(i), *s.style.colour, area);
        }
        draw_box(image, area);
        draw_axis(image, text, area, axis_side::bottom, x_scale, x_ticks, options_.x_label);
        draw_axis(image, text, area, axis_side::left, y_scale, y_ticks, options_.y_label);
        draw_title(image, text, area, options_.title);
        draw_legend(image, text, area, x_scale, y_scale);
        return figure;
    }

    /// Renders and writes the PNG; throws std::runtime_error naming `path` if it cannot be written.
    rendered_figure save(const std::filesystem::path& path) const { return write_figure(render(), path); }

private:
    struct plotted_series {
        std::string name;
        std::vector<double> x, y;
        series_style style;
    };

    axis_scale fitted_scale(scale_kind kind, std::vector<double> plotted_series::*values) const
    {
        double lo = (series_.front().*values).front(), hi = lo;
        for (const auto& s : series_)
            for (const double v : s.*values) lo = std::min(lo, v), hi = std::max(hi, v);
        return axis_scale::fitted(kind, lo, hi);
    }

    static int widest_label(text_renderer& text, const std::vector<axis_tick>& ticks)
    {
        int widest = 0;
        for (const auto& t : ticks)
            if (!t.label.empty()) widest = std::max(widest, text.measure(t.label, figure_style::tick_font).first);
        return widest;
    }

    static void draw_marker(raster_image& image, double x, double y, rgb colour, const pixel_rect& clip)
    {
        const int cx = static_cast<int>(std::lround(x)), cy = static_cast<int>(std::lround(y));
        for (int dy = -3; dy <= 3; ++dy)
            for (int dx = -3; dx <= 3; ++dx)
                if (dx * dx + dy * dy <= 10 && clip.contains(cx + dx, cy + dy)) image.set_pixel(cx + dx, cy + dy, colour);
    }

    void draw_legend(raster_image& image, text_renderer& text, const pixel_rect& area, const axis_scale& x_scale,
                     const axis_scale& y_scale) const
    {
        if (options_.legend == legend_position::none) return;
        constexpr int sample = 24, inset = 8;
        int name_width = 0, row = 0;
        std::vector<const plotted_series*> listed;
        for (const auto& s : series_)
            if (s.style.in_legend) listed.push_back(&s);
        if (listed.empty()) return;
        for (const auto* ps : listed) {
            const auto& s = *ps;
            const auto [w, h] = text.measure(s.name, figure_style::tick_font);
            name_width = std::max(name_width, w);
            row = std::max(row, h);
        }
        const int box_w = figure_style::gap * 3 + sample + name_width;
        const int box_h = figure_style::gap * 2 + row * static_cast<int>(listed.size());
        const auto box_at = [&](legend_position p) {
            const bool left = p == legend_position::upper_left || p == legend_position::lower_left;
            const bool upper = p == legend_position::upper_left || p == legend_position::upper_right;
            const int x = left ? area.left + inset : area.right - inset - box_w + 1;
            const int y = upper ? area.top + inset : area.bottom - inset - box_h + 1;
            return pixel_rect{x, y, x + box_w - 1, y + box_h - 1};
        };
        legend_position where = options_.legend;
        if (where == legend_position::best) {
            std::size_t fewest = SIZE_MAX;
            for (const auto p : {legend_position::upper_right, legend_position::upper_left, legend_position::lower_left,
                                 legend_position::lower_right}) {
                const std::size_t covered = data_pixels_in(box_at(p), area, x_scale, y_scale);
                if (covered < fewest) fewest = covered, where = p;
            }
        }
        const pixel_rect box = box_at(where);
        image.fill_rect(box, white);
        image.outline_rect(box, figure_style::grid);
        for (std::size_t i = 0; i < listed.size(); ++i) {
            const int y = box.top + figure_style::gap + row * static_cast<int>(i) + row / 2;
            const int x = box.left + figure_style::gap;
            const auto& style = listed[i]->style;
            if (style.line_width > 0)
                image.draw_line(x, y, x + sample - 1, y, *style.colour, style.line_width, box);
            if (style.markers || style.line_width == 0) draw_marker(image, x + sample / 2.0, y, *style.colour, box);
            text.draw(image, listed[i]->name, x + sample + figure_style::gap, y, figure_style::tick_font,
                      figure_style::ink, text_align::start, text_align::center);
        }
    }

    // How many points sampled along the data lines fall in `box` (for the legend's placement).
    std::size_t data_pixels_in(const pixel_rect& box, const pixel_rect& area, const axis_scale& x_scale,
                               const axis_scale& y_scale) const
    {
        std::size_t count = 0;
        for (const auto& s : series_)
            for (std::size_t i = 0; i < s.x.size(); ++i) {
                const double x0 = axis_pixel(area, axis_side::bottom, x_scale.fraction(s.x[i]));
                const double y0 = axis_pixel(area, axis_side::left, y_scale.fraction(s.y[i]));
                const std::size_t j = i + 1 < s.x.size() ? i + 1 : i;
                const double x1 = axis_pixel(area, axis_side::bottom, x_scale.fraction(s.x[j]));
                const double y1 = axis_pixel(area, axis_side::left, y_scale.fraction(s.y[j]));
                constexpr int samples = 16;
                for (int k = 0; k < samples; ++k) {
                    const double t = static_cast<double>(k) / samples;
                    count += box.contains(static_cast<int>(std::lround(x0 + t * (x1 - x0))),
                                          static_cast<int>(std::lround(y0 + t * (y1 - y0))));
                }
            }
        return count;
    }

    line_plot_options options_;
    std::vector<plotted_series> series_;
};

} // namespace qkov::report
