// A scan as a Markdown report a person reads: the model, what the numbers mean, one table of heads
// per layer, the strongest composition edges, and the figures (scan_figures.hpp) embedded by a
// path relative to the report. The JSON holds every number; this shows the ones a reader scans
// first, at a precision that reads well (the JSON's are full precision).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

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
        if (f.topic == topic) s += figure_link(f, o.figure_directory) + "\n";
    return s;
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
        report::table heads({"head", "kv head", "rank q/k", "cond q", "cond k", "sigma_1 QK", "sigma_1 OV", "OV / floor", "copying", "residual"});
        for (const auto& h : r.heads) {
            if (h.layer != l) continue;
            const auto top = [](const vector& v) { return v.size() ? format("%.4g", v(0)) : std::string("-"); };
            heads.add_row({head_name(h.layer, h.head), std::to_string(h.kv_head), format("%zu/%zu", h.q.rank, h.k.rank),
                           detail::optional_cell(h.q.condition, "%.3g", "rank-deficient"), detail::optional_cell(h.k.condition, "%.3g", "rank-deficient"),
                           top(h.qk.singular_values), top(h.ov.singular_values),
                           h.ov_identity_floor > 0 ? format("%.3f", h.ov_identity_distance / h.ov_identity_floor) : std::string("-"),
                           detail::optional_cell(h.copying_score, "%.3f", r.copying_available ? "none" : "no W_E/W_U"),
                           report::scientific(std::max(h.qk.residual, h.ov.residual), 1)});
        }
        if (heads.rows().empty()) continue;
        s += format("### Layer %zu\n\n", l) + heads.markdown() + "\n";
    }

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
