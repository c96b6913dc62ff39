// The detection's figures: one layers x heads heatmap per score (colour from 0 to what the
// behaviour can reach on these sequences, so a full-colour cell is a head doing nothing else), and
// the pattern of the strongest head of each behaviour on the first sequence (example_patterns.hpp),
// its causal upper triangle grey. File names say what they show: previous_token.png,
// pattern_induction_1.4.png.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "qkov/detect/example_patterns.hpp"
#include "qkov/model/head_name.hpp"
#include "qkov/report/layer_head_heatmap.hpp"
#include "qkov/report/number_text.hpp"

namespace qkov::detect {

struct detection_figure {
    std::string file, caption;
};

/// Draws every figure into `dir` (created if absent) and lists what it wrote, in order.
inline std::vector<detection_figure> write_detection_figures(const detection_result& r, const std::vector<example_pattern>& examples,
                                                             const std::filesystem::path& dir)
{
    std::filesystem::create_directories(dir);
    std::vector<detection_figure> written;
    const char* titles[3] = {"previous-token score", "duplicate-token score", "induction score"};
    for (std::size_t k = 0; k < 3; ++k) {
        report::head_grid g{0, r.layers, r.heads, std::vector<double>(r.layers * r.heads, 0.0), std::vector<bool>(r.layers * r.heads, true)};
        for (const auto& h : r.per_head) g.values[h.layer * r.heads + h.head] = h.score(k).mean;
        report::heatmap_options o;
        o.title = std::string(titles[k]) + ", mean of " + std::to_string(r.samples) + " samples (attainable " + report::format("%.3f", r.attainable[k]) + ")";
        o.colour_label = "attention on the template (mul)";
        o.colour_min = 0.0, o.colour_max = r.attainable[k];
        const std::string file = std::string(behaviour_names[k]) + ".png";
        report::save_layer_head_heatmap(g, std::move(o), dir / file);
        written.push_back({file, titles[k]});
    }
    for (const auto& e : examples) {
        const std::size_t n = e.tokens.size();
        const std::string name = model::head_name(e.layer, e.head);
        report::heatmap_options o;
        o.title = "head " + name + " (" + e.behaviour + ", mean score " + report::format("%.3f", e.mean_score) + ") on [BOS] + r + r, |r| = " +
                  std::to_string(r.length);
        o.colour_label = "attention weight";
        o.colour_min = 0.0, o.colour_max = 1.0;
        o.masked = [](std::size_t q, std::size_t k) { return k > q; };
        const std::string file = "pattern_" + e.behaviour + "_" + name + ".png";
        report::heatmap(n, n, e.pattern, std::move(o)).save(dir / file);
        written.push_back({file, "pattern of head " + name + ", the strongest " + e.behaviour + " head"});
    }
    return written;
}

} // namespace qkov::detect
