// The detection's figures: one layers x heads heatmap per score (colour from 0 to what the
// behaviour can reach on these sequences, so a full-colour cell is a head doing nothing else), and
// the pattern of the strongest head of each behaviour on the first sequence (example_patterns.hpp),
// its causal upper triangle grey. File names say what they show: previous_token.png,
// pattern_induction_1.4.png.
//
// With a scan, one scatter per behaviour the weights predict (prediction_<behaviour>.png): x the
// weights' prediction, y the measured value, one dot per head, and the label's and the behaviour's
// thresholds as lines, so a head's place says which of confirmed / contradicted / missed it is.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qkov/detect/detection_result.hpp"
#include "qkov/detect/example_pattern.hpp"
#include "qkov/detect/scan_labels.hpp"
#include "qkov/model/head_name.hpp"
#include "qkov/report/layer_head_heatmap.hpp"
#include "qkov/report/line_plot.hpp"
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
        o.title = "head " + name + " (" + e.behaviour + ", measured " + report::format("%.3f", e.measured) + ") on [BOS] + r + r, |r| = " +
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

/// A behaviour the weights predict a number for: that number (x), the measured one (y), and the
/// threshold each side reads a head by.
struct predicted_behaviour {
    std::string behaviour, prediction, measurement;
    double label_threshold = 0, behaviour_threshold = 0;
    std::function<std::optional<double>(const weight_predictions&)> predicted;
    std::function<std::optional<double>(const head_behaviour&)> measured;
};

/// Every behaviour the scan's predictions bear on: the previous-token score (TransformerLens' score,
/// as its rule measures it), offsets 0 and 2 .. largest_offset (mean A[i, i - k]), BOS, copying and
/// its suppression (measured as their rules measure them).
inline std::vector<predicted_behaviour> predicted_behaviours(const detection_result& r)
{
    std::vector<predicted_behaviour> out;
    const auto measured_by_rule = [&r](const char* behaviour) { return r.rule(behaviour)->value; };
    out.push_back({"previous_token", "predicted previous-token score (attention on key i - 1 over every query)", "measured previous-token score", 0.5,
                   r.rule("previous_token")->threshold, [](const weight_predictions& p) { return p.previous_token; }, measured_by_rule("previous_token")});
    for (std::size_t k = 0; k <= forward::largest_offset; ++k) {
        if (k == 1) continue;  // offset 1 is previous_token's
        out.push_back({"offset_" + std::to_string(k), "predicted attention at offset " + std::to_string(k),
                       "measured mean A[i, i - " + std::to_string(k) + "]", 0.5, r.behaviour_fraction,
                       [k](const weight_predictions& p) -> std::optional<double> {
                           if (!p.attention_by_offset) return std::nullopt;
                           return (*p.attention_by_offset)[k];
                       },
                       [k](const head_behaviour& h) -> std::optional<double> { return h.by_offset[k].mean; }});
    }
    out.push_back({"sink", "predicted attention to BOS", "measured mean attention to BOS", sink_threshold, r.rule("sink")->threshold,
                   [](const weight_predictions& p) { return p.bos; }, measured_by_rule("sink")});
    out.push_back({"copy", "predicted share of tokens ranked top-1 in their own OV row", "measured share of queries copying the attended token", 0.5,
                   r.rule("copy")->threshold, [](const weight_predictions& p) { return p.top1_share; }, measured_by_rule("copy")});
    out.push_back({"copy_suppression", "predicted share of tokens in their own OV row's bottom 10", "measured share of queries suppressing the attended token",
                   0.5, r.rule("copy_suppression")->threshold, [](const weight_predictions& p) { return p.bottom10_share; },
                   measured_by_rule("copy_suppression")});
    return out;
}

/// One scatter per predicted behaviour some head of the scan has a prediction for, into `dir`;
/// `skipped` gets the behaviours no head predicts (the caller says so).
inline std::vector<detection_figure> write_prediction_figures(const detection_result& r, const std::vector<weight_labels>& scanned,
                                                              const std::filesystem::path& dir, std::vector<std::string>& skipped)
{
    std::filesystem::create_directories(dir);
    std::vector<detection_figure> written;
    for (const auto& p : predicted_behaviours(r)) {
        std::vector<double> x, y;
        for (const auto& w : scanned) {
            const head_behaviour* h = r.find(w.layer, w.head);
            if (h == nullptr) continue;
            const auto predicted = p.predicted(w.predicted);
            const auto measured = p.measured(*h);
            if (predicted && measured) x.push_back(*predicted), y.push_back(*measured);
        }
        if (x.empty()) {
            skipped.push_back(p.behaviour);
            continue;
        }
        report::line_plot plot({.title = p.behaviour + ": the weights' prediction against the forward pass, " + std::to_string(x.size()) + " heads",
                                .x_label = p.prediction,
                                .y_label = p.measurement,
                                .legend = report::legend_position::best});
        plot.add_series("heads", x, y, {.colour = std::nullopt, .line_width = 0, .markers = true});
        plot.add_series("label threshold " + report::format("%g", p.label_threshold), {p.label_threshold, p.label_threshold}, {0.0, 1.0},
                        {.colour = report::rgb{120, 120, 120}, .line_width = 1, .markers = false});
        plot.add_series("behaviour threshold " + report::format("%g", p.behaviour_threshold), {0.0, 1.0}, {p.behaviour_threshold, p.behaviour_threshold},
                        {.colour = report::rgb{213, 94, 0}, .line_width = 1, .markers = false});
        const std::string file = "prediction_" + p.behaviour + ".png";
        plot.save(dir / file);
        written.push_back({file, p.behaviour + ": predicted from the weights against measured, one dot per head"});
    }
    return written;
}

} // namespace qkov::detect
