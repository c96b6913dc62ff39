// A scan as a Markdown report a person reads: the model, what the numbers mean, one table of heads
// per layer, each labelled head with the numbers behind its labels and its figures, the strongest
// composition edges, and the figures (scan_figures.hpp) embedded by a path relative to the report. The JSON holds every number; this shows the ones a reader scans
// first, at a precision that reads well (the JSON's are full precision).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "qkov/report/joined_text.hpp"
#include "qkov/report/number_text.hpp"
#include "qkov/report/table.hpp"
#include "qkov/scan/composition_edges.hpp"
#include "qkov/scan/scan_conventions.hpp"
#include "qkov/scan/scan_figures.hpp"
#include "qkov/scan/scan_model.hpp"

namespace qkov::scan {

struct markdown_options {
    std::string model_path;
    std::vector<std::pair<std::string, std::string>> model_summary;  ///< (field, value), as `qkov inspect` reports them
    std::size_t first_layer = 0, last_layer = 0;                      ///< the scanned layers
    std::vector<scan_figure> figures;  ///< written by write_scan_figures; empty without --figures
    std::string figure_directory;      ///< the figures' directory relative to the report ("" = beside it)
    std::size_t edges = 20;            ///< how many composition edges the table lists
};

namespace detail {

inline std::string format_number(double x) { return report::format("%g", x); }

inline std::string optional_cell(const std::optional<double>& x, const char* pattern, const char* absent)
{
    return x ? report::format(pattern, *x) : std::string(absent);
}

/// A figure as a Markdown image; the destination is wrapped in <> when it holds a space or parenthesis.
inline std::string figure_link(const scan_figure& f, const std::string& directory)
{
    std::string target = directory.empty() ? f.file : directory + "/" + f.file;
    if (target.find_first_of(" ()") != std::string::npos) target = "<" + target + ">";
    return "![" + f.caption + "](" + target + ")\n";
}

inline std::string figures_on(const markdown_options& o, figure_topic topic)
{
    std::string s;
    for (const auto& f : o.figures)
        if (f.topic == topic && !f.head) s += figure_link(f, o.figure_directory) + "\n";
    return s;
}

inline std::string figures_of(const markdown_options& o, const head_metrics& h)
{
    std::string s;
    for (const auto& f : o.figures)
        if (f.head && *f.head == std::pair(h.layer, h.head)) s += figure_link(f, o.figure_directory) + "\n";
    return s;
}

using report::joined;

inline std::vector<std::string> undecided_names(const head_labels& l)
{
    std::vector<std::string> names;
    for (const auto& u : l.undecided) names.push_back(u.label);
    return names;
}

/// The numbers behind a head's labels, one line each.
inline std::string label_evidence(const head_metrics& h)
{
    const auto& st = h.structure;
    std::string s = report::format("- one-direction shares: W_Q %.3f, W_K %.3f\n", st.one_direction_q, st.one_direction_k);
    if (st.reading_q && st.reading_k)
        s += report::format("- reading of the top direction over the vocabulary, std / |mean|: W_Q %.3g, W_K %.3g\n", st.reading_q->variation(),
                            st.reading_k->variation());
    if (st.profile) {
        const auto& p = *st.profile;
        s += report::format("- offset profile over 0..%zu: best offset %zu, ahead of the runner-up by %.3g of the range\n", p.score.size() - 1, p.best,
                            p.runner_up_fraction);
        if (p.certificate) {
            const auto& c = *p.certificate;
            s += report::format("- certificate (interval arithmetic): %s; over every offset 0..%zu except %zu the score is below its value at %zu "
                                "by a margin in [%.6g, %.6g]",
                                status_name(c.status), c.last, c.offset, c.offset, c.margin_lower, c.margin_upper);
            s += c.undecided_offsets ? report::format(" (%zu offsets undecided)\n", c.undecided_offsets) : std::string("\n");
        }
    }
    if (st.learned_positions) {
        const auto& p = *st.learned_positions;
        s += report::format("- learned positions: offset %zu is the best key for %.1f%% of %zu queries, mean weight %.3f\n", p.offset, 100 * p.query_share,
                            p.queries, p.mean_weight);
    }
    if (st.rope) {
        std::size_t slow = 0;
        for (const auto& p : st.rope->pairs) slow += p.slow ? 1 : 0;
        s += report::format("- RoPE (%s): %zu of %zu pairs slow; slow pairs and unrotated dimensions hold %.3f of the QK energy (%.3f under an even spread)\n",
                            st.rope->angles.c_str(), slow, st.rope->pairs.size(), st.rope->slow_share, st.rope->slow_baseline);
    }
    if (h.copying_score) s += report::format("- copying score %.3f (%.3f with the unembedding centred, which the label reads)\n", *h.copying_score, h.centred_copying_score.value_or(NAN));
    for (const auto& u : h.labels.undecided) s += "- undecided " + u.label + ": " + u.reason + "\n";
    return s;
}

/// The thresholds the labels used (docs/SCAN-LABELS.md gives each test in full).
inline report::table threshold_table(const label_thresholds& t)
{
    report::table table({"threshold", "value", "test"});
    table.add_row({"one_direction", format_number(t.one_direction), "positional: sigma_1^2 / sum sigma_i^2 of W_Q and of W_K at least this (claim R7)"});
    table.add_row({"constant_reading", format_number(t.constant_reading), "positional: std / |mean| of the top direction's reading over the vocabulary at most this"});
    table.add_row({"position_queries", format_number(t.position_queries), "offset label (learned positions): share of queries whose best key is at the offset"});
    table.add_row({"position_weight", format_number(t.position_weight), "offset label (learned positions): mean softmax weight at the offset"});
    table.add_row({"slow_share", format_number(t.slow_share), "semantic: QK energy in slow pairs and unrotated dimensions at least max(this, min(2b, (1 + b) / 2)), b the even spread (claim R12)"});
    table.add_row({"copying", format_number(t.copying), "copy: eigenvalue copying score, unembedding centred over the vocabulary, at least this (claim K2)"});
    table.add_row({"context", std::to_string(t.context), "offsets 0..context of the profile; a pair is slow when theta * context < pi / 2"});
    return table;
}

} // namespace detail

/// The whole report as Markdown text.
inline std::string scan_markdown(const scan_result& r, const markdown_options& o)
{
    using report::format;
    std::string s = "# qkov scan of " + o.model_path + "\n\n";
    s += format("Layers %zu-%zu: %zu heads, %zu composition pairs.\n\n", o.first_layer, o.last_layer, r.heads.size(), r.composition.size());

    s += "## Model\n\n";
    report::table model({"field", "value"});
    for (const auto& [field, value] : o.model_summary) model.add_row({field, value});
    s += model.markdown() + "\n";

    s += "## Conventions\n\n";
    s += "Every metric is computed in float64 from the stored weights; docs/SCAN-LABELS.md in the qkov sources gives each label's "
         "tests and thresholds. Heads are named layer.head (0-based).\n\n";
    report::table conventions({"quantity", "definition"});
    for (const auto& [name, text] : scan_conventions()) conventions.add_row({name, text});
    s += conventions.markdown() + "\n";

    s += "## Heads\n\n";
    s += "cond: sigma_max / sigma_min of W_Q, W_K (\"rank-deficient\" below full rank d); sigma_1: the largest singular value of the "
         "circuit; OV / floor: ||W_V W_O - I||_F over sqrt(D - d) (>= 1); residual: the larger reconstruction residual of the QK and "
         "OV SVDs.\n\n";
    s += detail::figures_on(o, figure_topic::heads);
    for (std::size_t l = o.first_layer; l <= o.last_layer; ++l) {
        report::table heads({"head", "kv head", "rank q/k", "cond q", "cond k", "sigma_1 QK", "sigma_1 OV", "OV / floor", "copying", "residual",
                             "one-direction q/k", "labels", "undecided"});
        for (const auto& h : r.heads) {
            if (h.layer != l) continue;
            const auto top = [](const vector& v) { return v.size() ? format("%.4g", v(0)) : std::string("-"); };
            heads.add_row({head_name(h.layer, h.head), std::to_string(h.kv_head), format("%zu/%zu", h.q.rank, h.k.rank),
                           detail::optional_cell(h.q.condition, "%.3g", "rank-deficient"), detail::optional_cell(h.k.condition, "%.3g", "rank-deficient"),
                           top(h.qk.singular_values), top(h.ov.singular_values),
                           h.ov_identity_floor > 0 ? format("%.3f", h.ov_identity_distance / h.ov_identity_floor) : std::string("-"),
                           detail::optional_cell(h.centred_copying_score, "%.3f", r.copying_available ? "none" : "no W_E/W_U"),
                           report::scientific(std::max(h.qk.residual, h.ov.residual), 1),
                           format("%.2f/%.2f", h.structure.one_direction_q, h.structure.one_direction_k), detail::joined(h.labels.labels),
                           detail::joined(detail::undecided_names(h.labels))});
        }
        if (heads.rows().empty()) continue;
        s += format("### Layer %zu\n\n", l) + heads.markdown() + "\n";
    }

    s += "## Labels\n\n";
    s += "A label is a hypothesis read from the weights, given only when every test of docs/SCAN-LABELS.md holds; \"undecided\" "
         "names a label whose test needs what the file lacks. Thresholds used:\n\n";
    s += detail::threshold_table(r.thresholds).markdown() + "\n";
    bool any_label = false;
    for (const auto& h : r.heads) {
        const std::string figures = detail::figures_of(o, h);
        if (h.labels.labels.empty() && figures.empty()) continue;
        any_label = true;
        s += "### " + head_name(h.layer, h.head) + (h.labels.labels.empty() ? "" : ": " + detail::joined(h.labels.labels)) + "\n\n";
        s += detail::label_evidence(h) + "\n" + figures;
    }
    if (!any_label) s += "No head is labelled.\n\n";

    s += "## Composition\n\n";
    if (r.composition.empty()) {
        s += "No pairs: the scan covers a single layer.\n\n";
        return s;
    }
    const auto edges = strongest_edges(r.composition, o.edges);
    s += format("The %zu strongest of %zu pairs by the largest of their Q, K and V scores (the JSON lists every pair, and each source "
                "head's strongest targets per kind). T3 sigma_1: the largest singular value of W_V(target) W_O(source).\n\n",
                edges.size(), r.composition.size());
    report::table table({"source", "target", "strongest", "q", "k", "v", "T3 sigma_1"});
    for (const auto& e : edges) {
        const auto& c = *e.pair;
        table.add_row({head_name(c.source_layer, c.source_head), head_name(c.target_layer, c.target_head), std::string(1, e.kind),
                       format("%.4f", c.q), format("%.4f", c.k), format("%.4f", c.v),
                       c.t3_singular_values.size() ? format("%.4g", c.t3_singular_values(0)) : std::string("-")});
    }
    s += table.markdown() + "\n";
    s += detail::figures_on(o, figure_topic::composition);
    return s;
}

} // namespace qkov::scan
