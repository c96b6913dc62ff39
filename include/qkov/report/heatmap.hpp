// Heatmaps: a matrix drawn as coloured cells (row 0 at the top, as matrices are written), with
// row and column index axes, a colour bar with ticks, optional log colour scale and optional
// masked cells (e.g. the causal upper triangle of an attention pattern), written as PNG.
//
//   qkov::report::heatmap map(L, L, pattern_row_major,
//                             {.title = "previous-token head", .colour_label = "attention weight",
//                              .colour_scale = qkov::report::scale_kind::log10,
//                              .masked = [](std::size_t q, std::size_t k) { return k > q; }});
//   map.save("pattern.png");
//
// A matrix larger than the drawing area is shown by averaging the cells each pixel covers.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/report/axis_scale.hpp"
#include "qkov/report/colour_map.hpp"
#include "qkov/report/data_checks.hpp"
#include "qkov/report/figure_frame.hpp"
#include "qkov/report/raster_image.hpp"
#include "qkov/report/text_renderer.hpp"

namespace qkov::report {

struct heatmap_options {
    std::string title{}, x_label = "key position", y_label = "query position", colour_label{};
    scale_kind colour_scale = scale_kind::linear;
    colour_map colours = colour_map::viridis();
    std::optional<double> colour_min{}, colour_max{};  // fixed colour range; values beyond are clamped
    std::function<bool(std::size_t row, std::size_t column)> masked{};  // masked cells: grey, not data
    // Index ticks to draw instead of the automatic 0, 1, 2, ... (value = row or column index), for
    // rows and columns that stand for something else, e.g. heads named "layer.head".
    std::vector<axis_tick> row_ticks{}, column_ticks{};
    int matrix_pixels = 560;  // the longer side of the matrix area
    std::filesystem::path font = default_font_path();
};

/// The colour of masked cells: light grey, clearly not a value of the (dark to light) map.
inline constexpr rgb masked_cell_colour{235, 235, 235};

class heatmap {
public:
    /// `values` holds rows x columns numbers row by row. Throws std::invalid_argument for an
    /// empty matrix, a wrong number of values, a NaN/infinite or (log scale) non-positive
    /// unmasked value (naming its row and column), or a bad fixed colour range.
    heatmap(std::size_t rows, std::size_t columns, std::vector<double> values, heatmap_options options = {})
        : rows_(rows), columns_(columns), values_(std::move(values)), options_(std::move(options))
    {
        if (rows == 0 || columns == 0)
            throw std::invalid_argument("qkov: heatmap '" + options_.title + "' is empty (" + std::to_string(rows) +
                                        "x" + std::to_string(columns) + ")");
        if (values_.size() != rows * columns)
            throw std::invalid_argument("qkov: heatmap '" + options_.title + "' has " + std::to_string(values_.size()) +
                                        " values for a " + std::to_string(rows) + "x" + std::to_string(columns) +
                                        " matrix");
        const std::string what = "heatmap '" + options_.title + "' value ";
        const auto cell = [this](std::size_t i) {
            std::string at = "at (row ";
            at += std::to_string(i / columns_);
            at += ", column ";
            at += std::to_string(i % columns_);
            at += ')';
            return at;
        };
        std::vector<double> shown;  // unmasked values, in order, remembering their index for errors
        std::vector<std::size_t> index;
        for (std::size_t i = 0; i < values_.size(); ++i)
            if (!is_masked(i / columns_, i % columns_)) shown.push_back(values_[i]), index.push_back(i);
        if (shown.empty()) throw std::invalid_argument("qkov: heatmap '" + options_.title + "' has every cell masked");
        const auto shown_cell = [&](std::size_t k) { return cell(index[k]); };
        require_finite(shown, what, shown_cell);
        require_positive_on_log(shown, options_.colour_scale, what, shown_cell);
        const auto [lo, hi] = std::minmax_element(shown.begin(), shown.end());
        const double first = options_.colour_min.value_or(*lo), last = options_.colour_max.value_or(*hi);
        const std::vector<double> range{first, last};
        const auto range_end = [](std::size_t k) { return std::string(k == 0 ? "colour_min" : "colour_max"); };
        require_finite(range, "heatmap '" + options_.title + "' ", range_end);
        require_positive_on_log(range, options_.colour_scale, "heatmap '" + options_.title + "' ", range_end);
        if (first > last)
            throw std::invalid_argument("qkov: heatmap '" + options_.title + "' colour range is reversed: " +
                                        printed_value(first) + " > " + printed_value(last));
        colour_range_ = {first, last};
        const auto check_ticks = [&](const std::vector<axis_tick>& ticks, std::size_t count, const char* side) {
            for (const auto& t : ticks)
                if (!(t.value >= 0.0 && t.value <= static_cast<double>(count) - 1.0))
                    throw std::invalid_argument("qkov: heatmap '" + options_.title + "' has a " + side + " tick '" + t.label + "' at " +
                                                printed_value(t.value) + ", outside the indices 0.." + std::to_string(count - 1));
        };
        check_ticks(options_.row_ticks, rows_, "row");
        check_ticks(options_.column_ticks, columns_, "column");
    }

    rendered_figure render() const
    {
        text_renderer text(options_.font);
        // Index axes put each index at its cell's centre; rows count downwards.
        const axis_scale x_scale(scale_kind::linear, -0.5, static_cast<double>(columns_) - 0.5);
        const axis_scale y_scale(scale_kind::linear, static_cast<double>(rows_) - 0.5, -0.5);
        const axis_scale colour_scale = axis_scale::spanning(options_.colour_scale, colour_range_.first,
                                                             colour_range_.second);
        const auto x_ticks = options_.column_ticks.empty() ? x_scale.ticks(8, true) : options_.column_ticks;
        const auto y_ticks = options_.row_ticks.empty() ? y_scale.ticks(8, true) : options_.row_ticks;
        const auto bar_ticks = colour_scale.ticks(6);

        // Whole pixels per cell when the matrix fits, so every cell is an equal square block.
        const std::size_t longer = std::max(rows_, columns_);
        const auto side = static_cast<std::size_t>(std::max(options_.matrix_pixels, 16));
        const std::size_t cell = longer <= side ? side / longer : 0;
        const int width = static_cast<int>(cell > 0 ? cell * columns_ : std::max<std::size_t>(1, side * columns_ / longer));
        const int height = static_cast<int>(cell > 0 ? cell * rows_ : std::max<std::size_t>(1, side * rows_ / longer));

        const int left = figure_style::padding + axis_margin(text, axis_side::left, y_ticks, options_.y_label);
        const int top = figure_style::padding + title_margin(text, options_.title) + figure_style::gap;
        const pixel_rect area{left, top, left + width - 1, top + height - 1};
        constexpr int bar_gap = 16, bar_width = 18;
        const pixel_rect bar{area.right + bar_gap, top, area.right + bar_gap + bar_width - 1, area.bottom};
        const int image_width =
            bar.right + 1 + axis_margin(text, axis_side::right, bar_ticks, options_.colour_label) + figure_style::padding;
        const int image_height =
            area.bottom + 1 + axis_margin(text, axis_side::bottom, x_ticks, options_.x_label) + figure_style::padding;

        rendered_figure figure{raster_image(image_width, image_height), area, bar};
        raster_image& image = figure.image;
        draw_cells(image, area, colour_scale);
        for (int y = bar.top; y <= bar.bottom; ++y)  // the bar shows the map at each row's centre
            image.fill_rect({bar.left, y, bar.right, y},
                            options_.colours.at((bar.bottom + 0.5 - y) / static_cast<double>(bar.height())));
        draw_box(image, area);
        draw_box(image, bar);
        draw_axis(image, text, area, axis_side::bottom, x_scale, x_ticks, options_.x_label);
        draw_axis(image, text, area, axis_side::left, y_scale, y_ticks, options_.y_label);
        draw_axis(image, text, bar, axis_side::right, colour_scale, bar_ticks, options_.colour_label);
        draw_title(image, text, area, options_.title);
        return figure;
    }

    /// Renders and writes the PNG; throws std::runtime_error naming `path` if it cannot be written.
    rendered_figure save(const std::filesystem::path& path) const { return write_figure(render(), path); }

private:
    bool is_masked(std::size_t row, std::size_t column) const { return options_.masked && options_.masked(row, column); }

    // Each pixel shows the mean of the unmasked cells it covers (exactly one cell when cells are
    // whole pixel blocks); a pixel over masked cells only is grey.
    void draw_cells(raster_image& image, const pixel_rect& area, const axis_scale& colour_scale) const
    {
        const auto w = static_cast<std::size_t>(area.width()), h = static_cast<std::size_t>(area.height());
        const auto span = [](std::size_t pixel, std::size_t pixels, std::size_t cells) {
            const std::size_t first = pixel * cells / pixels;
            return std::pair{first, std::max(first + 1, (pixel + 1) * cells / pixels)};
        };
        for (std::size_t py = 0; py < h; ++py) {
            const auto [r0, r1] = span(py, h, rows_);
            for (std::size_t px = 0; px < w; ++px) {
                const auto [c0, c1] = span(px, w, columns_);
                double sum = 0.0;
                std::size_t count = 0;
                for (std::size_t r = r0; r < r1; ++r)
                    for (std::size_t c = c0; c < c1; ++c)
                        if (!is_masked(r, c)) sum += values_[r * columns_ + c], ++count;
                const rgb colour =
                    count == 0 ? masked_cell_colour : options_.colours.at(colour_scale.fraction(sum / count));
                image.set_pixel(area.left + static_cast<int>(px), area.top + static_cast<int>(py), colour);
            }
        }
    }

    std::size_t rows_, columns_;
    std::vector<double> values_;
    heatmap_options options_;
    std::pair<double, double> colour_range_;
};

} // namespace qkov::report
