// Figures: the PNGs are read back with libpng's own reader (not qkov code) and checked on pixels
// whose place and colour follow from the data by hand: symmetry of a fitted axis, decades of a
// log axis, the anchor colours of a colour map. Tables and number text are compared with strings
// written out by hand.
#define BOOST_TEST_MODULE qkov report
#include <boost/test/unit_test.hpp>

#include <png.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/report/axis_scale.hpp"
#include "qkov/report/heatmap.hpp"
#include "qkov/report/line_plot.hpp"
#include "qkov/report/number_text.hpp"
#include "qkov/report/raster_image.hpp"
#include "qkov/report/table.hpp"
#include "qkov/report/text_renderer.hpp"

using namespace qkov::report;
namespace fs = std::filesystem;

namespace {

/// A PNG file as libpng decodes it to 8-bit RGB.
struct decoded_png {
    int width = 0, height = 0;
    std::vector<unsigned char> bytes;
    rgb at(int x, int y) const
    {
        const std::size_t i = 3 * (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x));
        return {bytes[i], bytes[i + 1], bytes[i + 2]};
    }
};

decoded_png read_png(const fs::path& path)
{
    png_image png;
    std::memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&png, path.c_str()))
        throw std::runtime_error("test: cannot read " + path.string() + ": " + png.message);
    png.format = PNG_FORMAT_RGB;
    decoded_png out;
    out.width = static_cast<int>(png.width);
    out.height = static_cast<int>(png.height);
    out.bytes.resize(PNG_IMAGE_SIZE(png));
    if (!png_image_finish_read(&png, nullptr, out.bytes.data(), 0, nullptr))
        throw std::runtime_error("test: cannot decode " + path.string() + ": " + png.message);
    return out;
}

/// A scratch folder for the PNGs of one test run.
fs::path scratch(const std::string& name)
{
    const fs::path dir = fs::temp_directory_path() / "qkov_report_tests";
    fs::create_directories(dir);
    return dir / name;
}

bool message_has(const std::exception& e, const std::string& part)
{
    return std::string(e.what()).find(part) != std::string::npos;
}

std::vector<double> range_of(int n, double first = 0.0)
{
    std::vector<double> v;
    for (int i = 0; i < n; ++i) v.push_back(first + i);
    return v;
}

/// The pixel at the centre of cell (row, column) of a heatmap drawn into `area`.
rgb cell_colour(const decoded_png& png, const pixel_rect& area, std::size_t rows, std::size_t columns, std::size_t row,
                std::size_t column)
{
    const int x = area.left + static_cast<int>((2 * column + 1) * static_cast<std::size_t>(area.width()) / (2 * columns));
    const int y = area.top + static_cast<int>((2 * row + 1) * static_cast<std::size_t>(area.height()) / (2 * rows));
    return png.at(x, y);
}

// viridis at 0, 1/2 and 1 (the published map's end and middle colours), written out here rather
// than taken from the library.
constexpr rgb viridis_0{0x44, 0x01, 0x54}, viridis_half{0x21, 0x91, 0x8c}, viridis_1{0xfd, 0xe7, 0x25};

} // namespace

BOOST_AUTO_TEST_SUITE(report)

BOOST_AUTO_TEST_CASE(written_png_has_the_requested_size)
{
    line_plot plot({.title = "size", .width = 640, .height = 420});
    plot.add_series("a", {0, 1, 2}, {1, 4, 9});
    const auto path = scratch("size.png");
    plot.save(path);
    const auto png = read_png(path);
    BOOST_TEST(png.width == 640);
    BOOST_TEST(png.height == 420);
}

// A single horizontal line is the only data, so the fitted y axis is symmetric about its value:
// the line must cross the middle row of the plot area, and nowhere else in that column.
BOOST_AUTO_TEST_CASE(horizontal_line_lies_on_the_middle_row)
{
    const rgb colour{200, 30, 40};
    line_plot plot({.x_label = "x", .y_label = "y", .legend = legend_position::none});
    plot.add_series("constant", range_of(11), std::vector<double>(11, 3.0), {.colour = colour});
    const auto path = scratch("horizontal.png");
    const auto figure = plot.save(path);
    const auto png = read_png(path);
    const pixel_rect a = figure.plot_area;
    const double middle = a.top - 0.5 + a.height() / 2.0;  // pixel rows span [row - 0.5, row + 0.5]
    for (const int x : {a.left + a.width() / 4, a.left + a.width() / 2, a.left + 3 * a.width() / 4}) {
        int hits = 0;
        for (int y = a.top; y <= a.bottom; ++y) {
            if (!(png.at(x, y) == colour)) continue;
            ++hits;
            BOOST_TEST(std::abs(y - middle) <= 1.5, "column " << x << ": line pixel at row " << y << ", middle " << middle);
        }
        BOOST_TEST(hits == 2, "column " << x << " has " << hits << " line pixels (pen width 2)");
    }
}

// On a log y axis fitted to data spanning 1..100, the value 10 sits halfway (log10 10 = 1 is
// halfway between 0 and 2).
BOOST_AUTO_TEST_CASE(value_ten_is_halfway_up_a_log_axis_from_one_to_a_hundred)
{
    const rgb colour{10, 120, 10};
    line_plot plot({.y_scale = scale_kind::log10, .legend = legend_position::none});
    plot.add_series("span", {0, 1}, {1, 100}, {.line_width = 0, .markers = true});
    plot.add_series("ten", range_of(5), std::vector<double>(5, 10.0), {.colour = colour});
    const auto path = scratch("log_ten.png");
    const auto figure = plot.save(path);
    const auto png = read_png(path);
    const pixel_rect a = figure.plot_area;
    const double middle = a.top - 0.5 + a.height() / 2.0;
    const int x = a.left + a.width() / 2;
    int hits = 0;
    for (int y = a.top; y <= a.bottom; ++y)
        if (png.at(x, y) == colour) {
            ++hits;
            BOOST_TEST(std::abs(y - middle) <= 1.5);
        }
    BOOST_TEST(hits == 2);
}

BOOST_AUTO_TEST_CASE(log_axis_ticks_are_the_powers_of_ten)
{
    const axis_scale scale(scale_kind::log10, 1e-3, 1e2);
    std::vector<double> majors;
    std::vector<std::string> labels;
    for (const auto& t : scale.ticks()) {
        if (t.major) majors.push_back(t.value), labels.push_back(t.label);
        else BOOST_TEST(t.label.empty());
    }
    const std::vector<double> expected{1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2};  // literals: the nearest doubles
    BOOST_TEST(majors == expected, boost::test_tools::per_element());
    const std::vector<std::string> expected_labels{"10⁻³", "10⁻²", "10⁻¹", "10⁰", "10¹", "10²"};
    BOOST_TEST(labels == expected_labels, boost::test_tools::per_element());
}

// The major tick marks of a log x axis over 1..1000 are drawn at the fractions 0, 1/3, 2/3, 1 of
// the axis; the row just above the tick tips holds only major ticks (minor ones are shorter).
BOOST_AUTO_TEST_CASE(log_axis_tick_marks_are_drawn_at_the_decades)
{
    line_plot plot({.x_scale = scale_kind::log10, .legend = legend_position::none});
    plot.add_series("a", {1, 30, 1000}, {1, 2, 3});
    const auto path = scratch("log_ticks.png");
    const auto figure = plot.save(path);
    const auto png = read_png(path);
    const pixel_rect a = figure.plot_area;
    const int row = a.bottom + 1 + figure_style::major_tick;  // the tips of the major ticks
    std::vector<int> columns;
    for (int x = a.left - 3; x <= a.right + 3; ++x)
        if (png.at(x, row) == black) columns.push_back(x);
    BOOST_TEST_REQUIRE(columns.size() == 4u);
    for (int k = 0; k < 4; ++k) {
        const double expected = a.left - 0.5 + a.width() * k / 3.0;
        BOOST_TEST(std::abs(columns[static_cast<std::size_t>(k)] - expected) <= 0.5 + 1e-9,
                   "decade " << k << ": tick at " << columns[static_cast<std::size_t>(k)] << ", expected " << expected);
    }
}

BOOST_AUTO_TEST_CASE(text_marks_pixels_inside_its_box_only)
{
    text_renderer text;
    for (const auto direction : {text_direction::horizontal, text_direction::upwards}) {
        raster_image image(200, 200);
        const auto box = text.draw(image, "query 10⁻³", 100, 100, 16, black, text_align::center, text_align::center,
                                   direction);
        const auto [w, h] = text.measure("query 10⁻³", 16);
        BOOST_TEST((direction == text_direction::horizontal ? box.width() == w && box.height() == h
                                                            : box.width() == h && box.height() == w));
        int inside = 0, outside = 0;
        for (int y = 0; y < 200; ++y)
            for (int x = 0; x < 200; ++x)
                if (!(image.pixel(x, y) == white)) (box.contains(x, y) ? inside : outside) += 1;
        BOOST_TEST(inside > 50);
        BOOST_TEST(outside == 0);
    }
}

BOOST_AUTO_TEST_CASE(equal_data_still_get_a_sane_axis)
{
    for (const auto kind : {scale_kind::linear, scale_kind::log10})
        for (const double v : {0.0, 3.0, -2.5, 1e-7, 100.0}) {
            if (kind == scale_kind::log10 && v <= 0.0) continue;
            for (const auto& scale : {axis_scale::fitted(kind, v, v), axis_scale::spanning(kind, v, v)}) {
                BOOST_TEST(scale.first() < v);
                BOOST_TEST(scale.last() > v);
                const auto ticks = scale.ticks();
                int labelled = 0;
                for (std::size_t i = 0; i < ticks.size(); ++i) {
                    BOOST_TEST(std::isfinite(ticks[i].value));
                    if (i > 0) BOOST_TEST(ticks[i].value > ticks[i - 1].value);
                    labelled += !ticks[i].label.empty();
                }
                BOOST_TEST(labelled >= 2, "value " << v << " gives " << labelled << " labelled ticks");
            }
        }
    line_plot plot;
    plot.add_series("flat", {1, 1, 1}, {2, 2, 2});
    BOOST_CHECK_NO_THROW(plot.save(scratch("flat.png")));
}

BOOST_AUTO_TEST_CASE(bad_series_are_rejected_with_their_name_and_index)
{
    line_plot plot({.y_scale = scale_kind::log10});
    const auto nan = std::numeric_limits<double>::quiet_NaN();
    const auto inf = std::numeric_limits<double>::infinity();
    BOOST_CHECK_EXCEPTION(plot.add_series("none", {}, {}), std::invalid_argument,
                          [](const auto& e) { return message_has(e, "'none'") && message_has(e, "empty"); });
    BOOST_CHECK_EXCEPTION(plot.add_series("short", {1, 2, 3}, {1, 2}), std::invalid_argument,
                          [](const auto& e) { return message_has(e, "'short'") && message_has(e, "3 x values but 2"); });
    BOOST_CHECK_EXCEPTION(plot.add_series("nan", {1, 2, 3}, {1, nan, 2}), std::invalid_argument,
                          [](const auto& e) { return message_has(e, "'nan' y[1]") && message_has(e, "nan"); });
    BOOST_CHECK_EXCEPTION(plot.add_series("inf", {1, inf, 3}, {1, 1, 2}), std::invalid_argument,
                          [](const auto& e) { return message_has(e, "'inf' x[1]") && message_has(e, "inf"); });
    BOOST_CHECK_EXCEPTION(plot.add_series("zero", {1, 2, 3}, {1, 0, 2}), std::invalid_argument,
                          [](const auto& e) { return message_has(e, "'zero' y[1] is 0") && message_has(e, "log"); });
    BOOST_CHECK_EXCEPTION(plot.add_series("negative", {1, 2}, {1, -4}), std::invalid_argument,
                          [](const auto& e) { return message_has(e, "'negative' y[1] is -4"); });
    BOOST_CHECK_EXCEPTION(plot.render(), std::logic_error, [](const auto& e) { return message_has(e, "no series"); });
}

BOOST_AUTO_TEST_CASE(unwritable_path_is_named)
{
    line_plot plot;
    plot.add_series("a", {0, 1}, {0, 1});
    const fs::path path = "/nonexistent-folder/qkov/figure.png";
    BOOST_CHECK_EXCEPTION(plot.save(path), std::runtime_error, [&](const auto& e) { return message_has(e, path.string()); });
}

BOOST_AUTO_TEST_CASE(missing_font_is_named_with_its_package)
{
    const fs::path font = "/nonexistent-folder/NoSuchFont.ttf";
    const auto names_font = [&](const std::runtime_error& e) {
        return message_has(e, font.string()) && message_has(e, "fonts-dejavu-core");
    };
    BOOST_CHECK_EXCEPTION(text_renderer{font}, std::runtime_error, names_font);
    line_plot plot({.font = font});
    plot.add_series("a", {0, 1}, {0, 1});
    BOOST_CHECK_EXCEPTION(plot.render(), std::runtime_error, names_font);
}

BOOST_AUTO_TEST_CASE(heatmap_cells_at_the_ends_of_the_scale_get_the_end_colours)
{
    const std::size_t n = 20;
    std::vector<double> values;
    for (std::size_t i = 0; i < n * n; ++i) values.push_back(static_cast<double>(i) - 150.0);  // row-major ramp
    const auto path = scratch("heatmap_ends.png");
    const auto figure = heatmap(n, n, values, {.title = "ramp", .colour_label = "value"}).save(path);
    const auto png = read_png(path);
    BOOST_TEST(png.width == figure.image.width());
    BOOST_TEST((cell_colour(png, figure.plot_area, n, n, 0, 0) == viridis_0));          // the minimum, top left
    BOOST_TEST((cell_colour(png, figure.plot_area, n, n, n - 1, n - 1) == viridis_1));  // the maximum, bottom right
    BOOST_TEST(!(cell_colour(png, figure.plot_area, n, n, 0, 1) == viridis_0));
    // Validation (tolerance of 4 levels): the colour bar's top and bottom rows show the two ends.
    const auto close = [](rgb a, rgb b) {
        return std::abs(a.r - b.r) <= 4 && std::abs(a.g - b.g) <= 4 && std::abs(a.b - b.b) <= 4;
    };
    const pixel_rect bar = figure.colour_bar;
    BOOST_TEST(close(png.at((bar.left + bar.right) / 2, bar.top), viridis_1));
    BOOST_TEST(close(png.at((bar.left + bar.right) / 2, bar.bottom), viridis_0));
}

// The middle of the colour range gets the middle anchor: 5 on a linear 0..10 scale, and 10^-2 on
// a log scale over 10^-4..1 (log10 -2 is halfway between -4 and 0).
BOOST_AUTO_TEST_CASE(heatmap_middle_value_gets_the_middle_colour_on_linear_and_log_scales)
{
    for (const auto kind : {scale_kind::linear, scale_kind::log10}) {
        const std::vector<double> values =
            kind == scale_kind::linear ? std::vector<double>{0, 5, 10} : std::vector<double>{1e-4, 1e-2, 1};
        const auto path = scratch("heatmap_middle.png");
        const auto figure = heatmap(1, 3, values, {.colour_scale = kind}).save(path);
        const auto png = read_png(path);
        BOOST_TEST((cell_colour(png, figure.plot_area, 1, 3, 0, 0) == viridis_0));
        BOOST_TEST((cell_colour(png, figure.plot_area, 1, 3, 0, 1) == viridis_half));
        BOOST_TEST((cell_colour(png, figure.plot_area, 1, 3, 0, 2) == viridis_1));
    }
}

// Masked cells are grey and play no part in the colour range (their NaN is not an error).
BOOST_AUTO_TEST_CASE(heatmap_masked_cells_are_grey_and_outside_the_range)
{
    const auto nan = std::numeric_limits<double>::quiet_NaN();
    const auto path = scratch("heatmap_masked.png");
    const auto figure = heatmap(2, 2, {1, nan, 2, 3},
                                {.masked = [](std::size_t row, std::size_t column) { return column > row; }})
                            .save(path);
    const auto png = read_png(path);
    BOOST_TEST((cell_colour(png, figure.plot_area, 2, 2, 0, 0) == viridis_0));
    BOOST_TEST((cell_colour(png, figure.plot_area, 2, 2, 0, 1) == masked_cell_colour));
    BOOST_TEST((cell_colour(png, figure.plot_area, 2, 2, 1, 1) == viridis_1));
}

// Given row ticks replace the automatic indices: a tick mark (black, just left of the frame) at
// the centre of row 2 only, and its long label widens the left margin.
BOOST_AUTO_TEST_CASE(heatmap_draws_given_row_ticks_at_their_rows)
{
    const std::vector<double> values(4 * 3, 1.0);
    const auto path = scratch("heatmap_ticks.png");
    const auto plain = heatmap(4, 3, values).render();
    const auto figure = heatmap(4, 3, values, {.row_ticks = {{2.0, "a long row name 2.0", true}}}).save(path);
    const auto png = read_png(path);
    const pixel_rect a = figure.plot_area;
    BOOST_TEST(a.left > plain.plot_area.left + 50);
    const auto row_centre = [&](int row) { return a.top + (2 * row + 1) * a.height() / 8; };
    BOOST_TEST((png.at(a.left - 4, row_centre(2)) == black));
    for (const int row : {0, 1, 3}) BOOST_TEST(!(png.at(a.left - 4, row_centre(row)) == black), "row " << row);
}

BOOST_AUTO_TEST_CASE(heatmap_tick_outside_the_matrix_is_named)
{
    try {
        heatmap(2, 3, std::vector<double>(6, 1.0), {.title = "t", .column_ticks = {{3.0, "3.0", true}}});
        BOOST_FAIL("a tick past the last column was accepted");
    } catch (const std::invalid_argument& e) {
        BOOST_TEST(message_has(e, "heatmap 't' has a column tick '3.0' at 3, outside the indices 0..2"), e.what());
    }
}

// 1120 columns in 560 pixels: each pixel averages two neighbouring columns, 0 and 10, so every
// pixel shows the middle colour although no cell has the value 5.
BOOST_AUTO_TEST_CASE(heatmap_larger_than_its_area_averages_cells)
{
    const std::size_t columns = 1120;
    std::vector<double> values;
    for (std::size_t r = 0; r < 2; ++r)
        for (std::size_t c = 0; c < columns; ++c) values.push_back(c % 2 == 0 ? 0.0 : 10.0);
    const auto path = scratch("heatmap_average.png");
    const auto figure = heatmap(2, columns, values, {.matrix_pixels = 560}).save(path);
    const auto png = read_png(path);
    const pixel_rect a = figure.plot_area;
    BOOST_TEST(a.width() == 560);
    int middle = 0;
    for (int x = a.left; x <= a.right; ++x) middle += png.at(x, a.top) == viridis_half;
    BOOST_TEST(middle == 560);
}

BOOST_AUTO_TEST_CASE(heatmap_equal_values_draw_without_dividing_by_zero)
{
    const auto path = scratch("heatmap_flat.png");
    const auto figure = heatmap(3, 3, std::vector<double>(9, 0.25)).save(path);
    const auto png = read_png(path);
    // The widened range is symmetric about 0.25, so every cell shows the middle colour.
    BOOST_TEST((cell_colour(png, figure.plot_area, 3, 3, 1, 2) == viridis_half));
}

BOOST_AUTO_TEST_CASE(bad_heatmaps_are_rejected_naming_the_cell)
{
    const auto nan = std::numeric_limits<double>::quiet_NaN();
    const auto has = [](const char* part) { return [part](const std::invalid_argument& e) { return message_has(e, part); }; };
    BOOST_CHECK_EXCEPTION(heatmap(0, 3, {}), std::invalid_argument, has("empty"));
    BOOST_CHECK_EXCEPTION(heatmap(2, 3, {1, 2, 3, 4, 5}), std::invalid_argument, has("5 values for a 2x3 matrix"));
    BOOST_CHECK_EXCEPTION(heatmap(2, 3, {1, 2, 3, 4, nan, 6}), std::invalid_argument, has("(row 1, column 1) is nan"));
    BOOST_CHECK_EXCEPTION(heatmap(2, 2, {1, 2, 0, 4}, {.colour_scale = scale_kind::log10}), std::invalid_argument,
                          has("(row 1, column 0) is 0, which a log scale cannot show"));
    BOOST_CHECK_EXCEPTION(heatmap(1, 2, {1, 2}, {.colour_min = 3.0, .colour_max = 1.0}), std::invalid_argument,
                          has("reversed"));
    BOOST_CHECK_EXCEPTION(heatmap(1, 2, {1, 2}, {.masked = [](std::size_t, std::size_t) { return true; }}),
                          std::invalid_argument, has("every cell masked"));
}

BOOST_AUTO_TEST_CASE(table_renders_markdown_rows_under_a_rule)
{
    table t({"claim", "bound"});
    t.add_row({"R5", "1.08"}).add_row({"T2", "3e-40"});
    BOOST_TEST(t.markdown() == "| claim | bound |\n| --- | --- |\n| R5 | 1.08 |\n| T2 | 3e-40 |\n");
}

BOOST_AUTO_TEST_CASE(table_escapes_bars_and_line_breaks_in_markdown_cells)
{
    table t({"what"});
    t.add_row({"W_Q = (I_d | 0), ||W||\nnext"});
    BOOST_TEST(t.markdown() == "| what |\n| --- |\n| W_Q = (I_d \\| 0), \\|\\|W\\|\\| next |\n");
}

BOOST_AUTO_TEST_CASE(table_aligns_plain_text_columns_as_asked)
{
    table t({"id", "value"}, {column_alignment::left, column_alignment::right});
    t.add_row({"R10", "1"}).add_row({"K1", "1234"});
    // Widths 3 and 5; two spaces between columns.
    BOOST_TEST(t.aligned() == "id   value\nR10      1\nK1    1234\n");
}

BOOST_AUTO_TEST_CASE(table_rejects_ragged_rows_and_alignments_naming_the_counts)
{
    table t({"a", "b"});
    BOOST_CHECK_EXCEPTION(t.add_row({"1"}), std::invalid_argument, [](const std::invalid_argument& e) {
        return std::string(e.what()).find("row has 1 cells, the header 2") != std::string::npos;
    });
    BOOST_CHECK_EXCEPTION(table({"a", "b"}, {column_alignment::left}), std::invalid_argument, [](const std::invalid_argument& e) {
        return std::string(e.what()).find("2 columns but 1 alignments") != std::string::npos;
    });
}

BOOST_AUTO_TEST_CASE(number_text_matches_the_printf_styles)
{
    BOOST_TEST(scientific(0.000123456) == "1.23e-04");
    BOOST_TEST(scientific(std::numeric_limits<double>::infinity()) == "inf");
    BOOST_TEST(fixed(2.5, 2) == "2.50");
    BOOST_TEST(format("%s = %d", "d", 64) == "d = 64");
}

BOOST_AUTO_TEST_SUITE_END()
