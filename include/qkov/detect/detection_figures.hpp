// The detection's figures: one layers x heads heatmap per score (colour from 0 to what the
// behaviour can reach on these sequences, so a full-colour cell is a head doing nothing else), and
// the pattern of the strongest head of each behaviour on the first sequence (example_patterns.hpp),
// its causal upper triangle grey. File names say what they show: previous_token.png,
// pattern_induction_1.4.png.
//
// With a scan, one scatter per behaviour the weights predict (prediction_<behaviour>.png): x the
// weights' prediction, y the measured value, one dot per head, and the label's and the behaviour's
// thresholds as lines, so a head's place says which of confirmed / contradicted / missed it is.
//
// A detection on text (the model's own, or a file's) draws the same figures with the prefix text_
// (text_previous_token.png, text_pattern_previous_token_1.3.png, text_prediction_sink.png when the
// scan predicts text), and one scatter per score of the text against the random tokens
// (text_vs_random_previous_token.png): x on random tokens, y on text, one dot per head, the
// diagonal where the two agree.
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
#include "qkov/labels/vocabulary.hpp"
#include "qkov/model/head_name.hpp"
#include "qkov/report/layer_head_heatmap.hpp"
#include "qkov/report/line_plot.hpp"
#include "qkov/report/number_text.hpp"

namespace qkov::detect {

struct detection_figure {
    std::string file, caption;
};

/// What the detection's sequences were, for a figure's title (a caption, which Markdown links set in
/// brackets, names the input alone: no brackets of its own).
inline std::string sequences_name(const detection_result& r)
{
    if (r.input == scan::scan_json_keys::input_random_tokens) return "[BOS] + r + r, |r| = " + std::to_string(r.length);
    return r.input;
}

/// Draws every figure into `dir` (created if absent), each file name starting with `prefix`, and
/// lists what it wrote, in order.
inline std::vector<detection_figure> write_detection_figures(const detection_result& r, const std::vector<example_pattern>& examples,
                                                             const std::filesystem::path& dir, const std::string& prefix = "")
{
    std::filesystem::create_directories(dir);
    std::vector<detection_figure> written;
    const char* titles[3] = {"previous-token score", "duplicate-token score", "induction score"};
    for (std::size_t k = 0; k < 3; ++k) {
        report::head_grid g{0, r.layers, r.heads, std::vector<double>(r.layers * r.heads, 0.0), std::vector<bool>(r.layers * r.heads, true)};
        for (const auto& h : r.per_head) g.values[h.layer * r.heads + h.head] = h.score(k).mean;
        report::heatmap_options o;
        o.title = std::string(titles[k]) + " on " + sequences_name(r) + ", mean of " + std::to_string(r.samples) + " samples (attainable " +
                  report::format("%.3f", r.attainable[k]) + ")";
        o.colour_label = "attention on the template (mul)";
        o.colour_min = 0.0, o.colour_max = r.attainable[k];
        const std::string file = prefix + behaviour_names[k] + ".png";
        report::save_layer_head_heatmap(g, std::move(o), dir / file);
        written.push_back({file, std::string(titles[k]) + " on " + r.input});
    }
    for (const auto& e : examples) {
        const std::size_t n = e.tokens.size();
        const std::string name = model::head_name(e.layer, e.head);
        report::heatmap_options o;
        o.title = "head " + name + " (" + e.behaviour + ", measured " + report::format("%.3f", e.measured) + ") on " + sequences_name(r) +
                  (r.input == scan::scan_json_keys::input_random_tokens ? "" : ", its first sequence");
        o.colour_label = "attention weight";
        o.colour_min = 0.0, o.colour_max = 1.0;
        o.masked = [](std::size_t q, std::size_t k) { return k > q; };
        const std::string file = prefix + "pattern_" + e.behaviour + "_" + name + ".png";
        report::heatmap(n, n, e.pattern, std::move(o)).save(dir / file);
        written.push_back({file, "pattern of head " + name + ", the strongest " + e.behaviour + " head on " + r.input});
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
    out.push_back({"previous_token", "predicted previous-token score (attention on key i - 1 over every query)", "measured previous-token score", labels::majority,
                   r.rule("previous_token")->threshold, [](const weight_predictions& p) { return p.previous_token; }, measured_by_rule("previous_token")});
    for (const std::size_t k : labels::numbers_of(labels::family::offset)) {  // offset 1 is previous_token's
        out.push_back({labels::offset_name(k), "predicted attention at offset " + std::to_string(k),
                       "measured mean A[i, i - " + std::to_string(k) + "]", labels::majority, r.behaviour_fraction,
                       [k](const weight_predictions& p) -> std::optional<double> {
                           if (!p.attention_by_offset) return std::nullopt;
                           return (*p.attention_by_offset)[k];
                       },
                       [k](const head_behaviour& h) -> std::optional<double> { return h.by_offset[k].mean; }});
    }
    out.push_back({"sink", "predicted attention to BOS", "measured mean attention to BOS", labels::sink_threshold, r.rule("sink")->threshold,
                   [](const weight_predictions& p) { return p.bos; }, measured_by_rule("sink")});
    out.push_back({"copy", "predicted share of tokens ranked top-1 in their own OV row", "measured share of queries copying the attended token", labels::majority,
                   r.rule("copy")->threshold, [](const weight_predictions& p) { return p.top1_share; }, measured_by_rule("copy")});
    out.push_back({"copy_suppression", "predicted share of tokens in their own OV row's bottom 10", "measured share of queries suppressing the attended token",
                   labels::majority, r.rule("copy_suppression")->threshold, [](const weight_predictions& p) { return p.bottom10_share; },
                   measured_by_rule("copy_suppression")});
    return out;
}

/// One scatter per predicted behaviour some head of the scan has a prediction for, into `dir`;
/// `skipped` gets the behaviours no head predicts (the caller says so).
inline std::vector<detection_figure> write_prediction_figures(const detection_result& r, const std::vector<weight_labels>& scanned,
                                                              const std::filesystem::path& dir, std::vector<std::string>& skipped,
                                                              const std::string& prefix = "")
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
        report::line_plot plot({.title = p.behaviour + ": the weights' prediction against the forward pass on " + sequences_name(r) + ", " +
                                         std::to_string(x.size()) + " heads",
                                .x_label = p.prediction,
                                .y_label = p.measurement,
                                .legend = report::legend_position::best});
        plot.add_series("heads", x, y, {.colour = std::nullopt, .line_width = 0, .markers = true});
        plot.add_series("label threshold " + report::format("%g", p.label_threshold), {p.label_threshold, p.label_threshold}, {0.0, 1.0},
                        {.colour = report::rgb{120, 120, 120}, .line_width = 1, .markers = false});
        plot.add_series("behaviour threshold " + report::format("%g", p.behaviour_threshold), {0.0, 1.0}, {p.behaviour_threshold, p.behaviour_threshold},
                        {.colour = report::rgb{213, 94, 0}, .line_width = 1, .markers = false});
        const std::string file = prefix + "prediction_" + p.behaviour + ".png";
        plot.save(dir / file);
        written.push_back({file, p.behaviour + ": predicted from the weights against measured on " + r.input + ", one dot per head"});
    }
    return written;
}

/// One scatter per score of the text's detection against the random tokens' (the same heads): x
/// on random tokens, y on text, and the diagonal where they agree, into `dir`.
inline std::vector<detection_figure> write_text_beside_random_figures(const detection_result& random, const detection_result& text,
                                                                      const std::filesystem::path& dir)
{
    std::filesystem::create_directories(dir);
    struct score {
        const char *name, *label;
        std::function<std::optional<double>(const head_behaviour&)> value;
    };
    const std::vector<score> scores{
        {"previous_token", "previous-token score", [](const head_behaviour& h) -> std::optional<double> { return h.previous_token.mean; }},
        {"duplicate_token", "duplicate-token score", [](const head_behaviour& h) -> std::optional<double> { return h.duplicate_token.mean; }},
        {"induction", "induction score", [](const head_behaviour& h) -> std::optional<double> { return h.induction.mean; }},
        {"bos", "mean attention to BOS", [](const head_behaviour& h) -> std::optional<double> { return h.bos.mean; }},
        {"copy", "share of queries copying the attended token", [](const head_behaviour& h) -> std::optional<double> {
             if (!h.copying || h.copying->queries == 0) return std::nullopt;
             return h.copying->top1_share();
         }}};
    std::vector<detection_figure> written;
    for (const auto& sc : scores) {
        std::vector<double> x, y;
        for (const auto& h : text.per_head) {
            const head_behaviour* on_random = random.find(h.layer, h.head);
            if (on_random == nullptr) continue;
            const auto a = sc.value(*on_random), b = sc.value(h);
            if (a && b) x.push_back(*a), y.push_back(*b);
        }
        if (x.empty()) continue;  // copying not measured on either
        report::line_plot plot({.title = std::string(sc.label) + ": " + text.input + " against random tokens, " + std::to_string(x.size()) + " heads",
                                .x_label = std::string(sc.label) + " on " + sequences_name(random),
                                .y_label = std::string(sc.label) + " on " + text.input,
                                .legend = report::legend_position::best});
        plot.add_series("heads", x, y, {.colour = std::nullopt, .line_width = 0, .markers = true});
        plot.add_series("equal", {0.0, 1.0}, {0.0, 1.0}, {.colour = report::rgb{120, 120, 120}, .line_width = 1, .markers = false});
        const std::string file = std::string("text_vs_random_") + sc.name + ".png";
        plot.save(dir / file);
        written.push_back({file, std::string(sc.label) + " on " + text.input + " against random tokens, one dot per head"});
    }
    return written;
}

} // namespace qkov::detect
