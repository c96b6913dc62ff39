// A per-head number of a model drawn as a layers x heads heatmap (rows are layers, columns heads),
// the figure both the scan (weights) and the detectors (behaviour) draw for each metric: a head
// without a value is grey, not a number, and each axis is labelled on a 1, 2, 5 stride so that a
// model with many layers or heads stays legible.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "qkov/report/heatmap.hpp"

namespace qkov::report {

/// Ticks at the indices 0, k, 2k, ... of `count` cells (k the smallest of 1, 2, 5, 10, 20, ...
/// that keeps at most `max_labels` labels), labelled by `label`.
inline std::vector<axis_tick> index_ticks(std::size_t count, std::size_t max_labels, const std::function<std::string(std::size_t)>& label)
{
    const auto labels = [count](std::size_t stride) { return (count + stride - 1) / stride; };
    std::size_t stride = 1;
    for (std::size_t decade = 1; labels(stride) > std::max<std::size_t>(max_labels, 1); decade *= 10)
        for (const std::size_t m : {std::size_t{1}, std::size_t{2}, std::size_t{5}})
            if (labels(stride = m * decade) <= max_labels) break;
    std::vector<axis_tick> ticks;
    for (std::size_t i = 0; i < count; i += stride) ticks.push_back({static_cast<double>(i), label(i), true});
    return ticks;
}

/// A metric laid out as layers x heads, row by row; `present` is false where a head has no value.
struct head_grid {
    std::size_t first_layer = 0, layers = 0, heads = 0;
    std::vector<double> values;
    std::vector<bool> present;

    [[nodiscard]] bool any() const
    {
        for (const bool p : present)
            if (p) return true;
        return false;
    }
};

/// The grid as a heatmap titled and scaled by `o` (its axis labels and ticks are set here), saved to `file`.
inline void save_layer_head_heatmap(const head_grid& g, heatmap_options o, const std::filesystem::path& file)
{
    o.x_label = "head", o.y_label = "layer";
    o.masked = [&g](std::size_t r, std::size_t c) { return !g.present[r * g.heads + c]; };
    o.row_ticks = index_ticks(g.layers, 12, [&g](std::size_t i) { return std::to_string(g.first_layer + i); });
    o.column_ticks = index_ticks(g.heads, 12, [](std::size_t i) { return std::to_string(i); });
    heatmap(g.layers, g.heads, g.values, std::move(o)).save(file);
}

} // namespace qkov::report
