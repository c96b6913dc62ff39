// What every figure draws around its data: the box, tick marks, tick labels, grid lines, axis
// titles and the figure title, and the margins they need. Line plots and heatmaps both use it,
// so all figures look alike.
#pragma once

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "qkov/report/axis_scale.hpp"
#include "qkov/report/raster_image.hpp"
#include "qkov/report/text_renderer.hpp"

namespace qkov::report {

/// Font sizes (pixels) and spacing shared by all figures.
struct figure_style {
    static constexpr int tick_font = 13, label_font = 15, title_font = 17;
    static constexpr int major_tick = 6, minor_tick = 3, gap = 4, padding = 10;
    static constexpr rgb ink{0, 0, 0};
    static constexpr rgb grid{228, 228, 228};
};

/// A drawn figure and where its data went, so callers (and tests) can locate values in pixels.
struct rendered_figure {
    raster_image image;
    pixel_rect plot_area;   // the data area, inside the frame
    pixel_rect colour_bar;  // empty for figures without one
};

/// Writes `figure` as PNG and hands it back; throws std::runtime_error naming `path` on failure.
inline rendered_figure write_figure(rendered_figure figure, const std::filesystem::path& path)
{
    write_png(figure.image, path);
    return figure;
}

/// The side of a data area an axis is drawn on.
enum class axis_side { bottom, left, right };

/// The pixel coordinate (x for bottom axes, y for left/right ones) of a fraction along the axis.
/// Fraction 0 is the outer edge of the first pixel row/column, 1 the outer edge of the last, so
/// n equal cells map to exactly n equal pixel blocks.
inline double axis_pixel(const pixel_rect& area, axis_side side, double fraction)
{
    if (side == axis_side::bottom) return area.left - 0.5 + fraction * area.width();
    return area.bottom + 0.5 - fraction * area.height();
}

/// The room an axis takes outside its data area: ticks, labels and the axis title.
inline int axis_margin(text_renderer& text, axis_side side, const std::vector<axis_tick>& ticks,
                       const std::string& title)
{
    int label_extent = 0;
    for (const auto& tick : ticks) {
        if (tick.label.empty()) continue;
        const auto [w, h] = text.measure(tick.label, figure_style::tick_font);
        label_extent = std::max(label_extent, side == axis_side::bottom ? h : w);
    }
    int title_extent = 0;
    if (!title.empty()) title_extent = text.measure(title, figure_style::label_font).second + figure_style::gap;
    return figure_style::major_tick + figure_style::gap + label_extent + figure_style::gap + title_extent;
}

/// Light grid lines across `area` at the major ticks (drawn before the data, so data stay on top).
inline void draw_grid(raster_image& image, const pixel_rect& area, axis_side side, const axis_scale& scale,
                      const std::vector<axis_tick>& ticks)
{
    for (const auto& tick : ticks) {
        if (!tick.major) continue;
        const auto p = static_cast<int>(std::lround(axis_pixel(area, side, scale.fraction(tick.value))));
        if (side == axis_side::bottom) image.fill_rect({p, area.top, p, area.bottom}, figure_style::grid);
        else image.fill_rect({area.left, p, area.right, p}, figure_style::grid);
    }
}

/// Tick marks, tick labels and the axis title on one side of `area` (drawn after the data).
inline void draw_axis(raster_image& image, text_renderer& text, const pixel_rect& area, axis_side side,
                      const axis_scale& scale, const std::vector<axis_tick>& ticks, const std::string& title)
{
    int label_extent = 0;  // how far the labels reach, to put the title beyond them
    for (const auto& tick : ticks) {
        const auto p = static_cast<int>(std::lround(axis_pixel(area, side, scale.fraction(tick.value))));
        const int length = tick.major ? figure_style::major_tick : figure_style::minor_tick;
        const int label_at = figure_style::major_tick + figure_style::gap;
        pixel_rect box;
        switch (side) {
        case axis_side::bottom:
            image.fill_rect({p, area.bottom + 2, p, area.bottom + 1 + length}, figure_style::ink);
            if (tick.label.empty()) continue;
            box = text.draw(image, tick.label, p, area.bottom + 1 + label_at, figure_style::tick_font,
                            figure_style::ink, text_align::center, text_align::start);
            label_extent = std::max(label_extent, box.bottom - area.bottom);
            break;
        case axis_side::left:
            image.fill_rect({area.left - 1 - length, p, area.left - 2, p}, figure_style::ink);
            if (tick.label.empty()) continue;
            box = text.draw(image, tick.label, area.left - 1 - label_at, p, figure_style::tick_font, figure_style::ink,
                            text_align::end, text_align::center);
            label_extent = std::max(label_extent, area.left - box.left);
            break;
        case axis_side::right:
            image.fill_rect({area.right + 2, p, area.right + 1 + length, p}, figure_style::ink);
            if (tick.label.empty()) continue;
            box = text.draw(image, tick.label, area.right + 1 + label_at, p, figure_style::tick_font,
                            figure_style::ink, text_align::start, text_align::center);
            label_extent = std::max(label_extent, box.right - area.right);
            break;
        }
    }
    if (title.empty()) return;
    label_extent = std::max(label_extent, figure_style::major_tick + 1);
    const int centre_x = (area.left + area.right) / 2, centre_y = (area.top + area.bottom) / 2;
    switch (side) {
    case axis_side::bottom:
        text.draw(image, title, centre_x, area.bottom + label_extent + figure_style::gap, figure_style::label_font,
                  figure_style::ink, text_align::center, text_align::start);
        break;
    case axis_side::left:
        text.draw(image, title, area.left - label_extent - figure_style::gap, centre_y, figure_style::label_font,
                  figure_style::ink, text_align::end, text_align::center, text_direction::upwards);
        break;
    case axis_side::right:
        text.draw(image, title, area.right + label_extent + figure_style::gap, centre_y, figure_style::label_font,
                  figure_style::ink, text_align::start, text_align::center, text_direction::upwards);
        break;
    }
}

/// The frame line just outside `area`, so it never covers data.
inline void draw_box(raster_image& image, const pixel_rect& area)
{
    image.outline_rect({area.left - 1, area.top - 1, area.right + 1, area.bottom + 1}, figure_style::ink);
}

/// Height the figure title takes at the top (0 without a title).
inline int title_margin(text_renderer& text, const std::string& title)
{
    return title.empty() ? 0 : text.measure(title, figure_style::title_font).second + figure_style::gap;
}

/// The figure title, centred over `area`, at the top of the image.
inline void draw_title(raster_image& image, text_renderer& text, const pixel_rect& area, const std::string& title)
{
    if (title.empty()) return;
    text.draw(image, title, (area.left + area.right) / 2, figure_style::padding, figure_style::title_font,
              figure_style::ink, text_align::center, text_align::start);
}

} // namespace qkov::report
