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

#include "qkov/labels/vocabulary.hpp"
#include "qkov/report/joined_text.hpp"
#include "qkov/report/number_text.hpp"
#include "qkov/report/table.hpp"
#include "qkov/scan/composition_edges.hpp"
#include "qkov/scan/scan_conventions.hpp"
#include "qkov/scan/scan_figures.hpp"
#include "qkov/scan/scan_result.hpp"

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
    if (st.rope) {
        std::size_t slow = 0;
        for (const auto& p : st.rope->pairs) slow += p.slow ? 1 : 0;
        s += report::format("- RoPE (%s): %zu of %zu pairs slow; slow pairs and unrotated dimensions hold %.3f of the QK energy (%.3f under an even spread)\n",
                            st.rope->angles.c_str(), slow, st.rope->pairs.size(), st.rope->slow_share, st.rope->slow_baseline);
    }
    if (const auto& m = h.mean_field) {
        std::string offsets;
        for (std::size_t k = 0; k < m->by_offset.size(); ++k) offsets += report::format("%s%.2f", k ? " " : "", m->by_offset[k]);
        s += report::format("- predicted attention (mean field, %s positions) by offset 0..%zu: %s; BOS %.2f; swing %.2f nats", m->positions.c_str(),
                            m->window, offsets.c_str(), m->bos, m->swing);
        if (m->swing_bound) s += report::format(" (certified <= %.3g given the proxy input", *m->swing_bound);
        if (m->swing_bound_every_input) s += report::format("; <= %.3g for every input", *m->swing_bound_every_input);
        s += m->swing_bound ? ")\n" : "\n";
    }
    if (const auto& c = h.per_token_copying)
        s += report::format("- per-token copying over %zu of %zu tokens: top-1 %.3f, top-5 %.3f, bottom-10 %.3f, median margin %.2f row std\n", c->tokens,
                            c->vocabulary, c->top1_share, c->top5_share, c->bottom10_share, c->median_margin);
    if (h.copying_score) s += report::format("- eigenvalue copying score %.3f (%.3f with the unembedding centred, which the label reads)\n", *h.copying_score, h.centred_copying_score.value_or(NAN));
    if (!h.labels.certified.empty()) s += "- certified: " + joined(h.labels.certified) + "\n";
    if (!h.labels.seed_searches.empty()) s += "- found by the seeds' searches: " + joined(h.labels.seed_searches) + "\n";
    for (const auto& u : h.labels.undecided) s += "- undecided " + u.label + ": " + u.reason + "\n";
    return s;
}

/// The label rules and the thresholds they used (docs/SCAN-LABELS.md gives each rule in full).
inline report::table threshold_table(const label_thresholds& t)
{
    report::table table({"label", "rule", "why"});
    for (const auto& row : labels::label_rows()) table.add_row({row.name, row.rule, row.reason});
    table.add_row({"(settings)",
                   report::format("window %zu offsets, queries %zu .. %zu of the proxy sequence, per-token copying over at most %zu tokens", t.window, t.window,
                          t.queries, t.copy_tokens),
                   "the attention by offset is predicted for offsets 0 .. window, averaged over those queries"});
    table.add_row({"(seed searches)",
                   report::format("rank_one_reading: one-direction shares >= %g and reading std / |mean| <= %g (R7); bottom_heavy: slow-pair share >= max(%g, "
                          "min(2b, (1 + b) / 2)) over offsets 0 .. %zu (R12)",
                          t.one_direction, t.constant_reading, t.slow_share, t.context),
                   "the seeds' constructions, kept as checks under their own names: evidence on trained models, not labels"});
    return table;
}

/// "offset 1 through 0.1 (0.98), 0.3" or "its own token" for offset 0.
inline std::string side_text(const circuit_side& s)
{
    if (s.offset == 0) return "its own token";
    std::string text = report::format("the token %zu back, through ", s.offset);
    for (std::size_t i = 0; i < s.partners.size() && i < 3; ++i)
        text += (i ? ", " : "") + head_name(s.partners[i].layer, s.partners[i].head) + report::format(" (%.0f %%)", 100 * s.partners[i].share);
    return s.partners.empty() ? text + "the earlier layers" : text;
}

/// The circuits the heads are labelled by: what each reads on each side, how often the diagonal
/// wins and by how much, and what it writes.
inline std::string circuits_section(const scan_result& r)
{
    std::string s = "## Circuits\n\n";
    s += "A head whose query reads the token k_q back and whose key the token k_k back (through what earlier heads write at those offsets, "
         "or its own token) attends on a repeat to the token s = k_k - k_q after an earlier occurrence: `duplicate_token` (s = 0), "
         "`induction` (s = 1), `repeat_shift_<s>`. The test: the share of tokens whose matching key wins its row of the composed QK "
         "circuit (top-1), averaged over query-key offsets spread over the context; the boost: how far the match raises the key's score, in "
         "nats (docs/SCAN-LABELS.md, \"Circuits\").\n\n";
    report::table table({"head", "label", "query reads", "key reads", "top-1 [95 %]", "boost", "writes", "predicts the next token"});
    for (const auto& h : r.heads) {
        if (!h.circuits || !h.circuits->circuit) continue;
        const auto& c = *h.circuits->circuit;
        if (std::find(h.labels.labels.begin(), h.labels.labels.end(), c.label) == h.labels.labels.end()) continue;
        const std::string writes = !c.output ? "-"
                                   : c.output->value.offset == 0
                                       ? report::format("its own token (top-1 %.2f)", c.output->top1_share)
                                       : side_text(c.output->value) + report::format(" (top-1 %.2f)", c.output->top1_share);
        table.add_row({head_name(h.layer, h.head), c.label, side_text(c.circuit.query), side_text(c.circuit.key),
                       report::format("%.2f [%.2f, %.2f]", c.circuit.top1_share, c.circuit.top1_interval.first, c.circuit.top1_interval.second),
                       report::format("%.1f", c.circuit.boost), writes, c.predicts_next_token ? "yes" : "no"});
    }
    if (table.rows().empty()) {
        bool searched = false;
        for (const auto& h : r.heads) searched = searched || (h.circuits && h.circuits->missing.empty());
        s += searched ? "No head's composed circuit wins its diagonal for a majority of the tokens.\n\n"
                      : "No circuit was searched: it needs the forward pass's token rows and a layer with earlier ones.\n\n";
        return s;
    }
    s += table.markdown() + "\n";
    return s;
}

} // namespace detail

/// The seeds' questions answered on the model at hand, with numbers: are positional heads rank-1
/// (Experiment 2)? do content heads use the slow pairs (Experiments 3/4)? does one head copy every
/// token, or is the vocabulary split over a layer's heads (Question 2, Experiment 6)?
inline std::string seeds_answered(const scan_result& r)
{
    using report::format;
    std::string s = "## What the seeds asked, answered on these weights\n\n";
    std::size_t positional = 0, rank_one = 0, semantic = 0, bottom_heavy = 0;
    double positional_top_share = 0;
    std::string ranks;
    for (const auto& h : r.heads) {
        const auto has = [&](const char* l) { return std::find(h.labels.labels.begin(), h.labels.labels.end(), l) != h.labels.labels.end(); };
        const auto searched = [&](const char* l) { return std::find(h.labels.seed_searches.begin(), h.labels.seed_searches.end(), l) != h.labels.seed_searches.end(); };
        if (has("positional")) {
            ++positional;
            rank_one += h.q.rank == 1 && h.k.rank == 1 ? 1 : 0;
            positional_top_share += std::min(h.structure.one_direction_q, h.structure.one_direction_k);
            ranks += (ranks.empty() ? "" : ", ") + head_name(h.layer, h.head) + format(" %zu/%zu", h.q.rank, h.k.rank);
        }
        if (has("semantic")) ++semantic, bottom_heavy += searched("bottom_heavy") ? 1 : 0;
    }
    s += format("- **Are positional heads rank-1 (Experiment 2)?** %zu heads are labelled positional; %zu of them have rank-1 W_Q and W_K.", positional, rank_one);
    if (positional > 0)
        s += format(" Their W_Q, W_K put on average %.2f of their squared norm in the top singular value (1 for a rank-1 head); ranks q/k: %s. ",
                    positional_top_share / static_cast<double>(positional), ranks.c_str()) +
             (rank_one == positional ? "They are built the seed's way.\n" : "The others read the residual stream's mean direction through projections of higher rank.\n");
    else
        s += "\n";
    s += format("- **Do content heads use the slow pairs (Experiments 3/4)?** %zu heads are labelled semantic; %zu of them are bottom-heavy "
                "(the slow pairs and unrotated dimensions hold most of their QK energy).\n",
                semantic, bottom_heavy);
    std::size_t layer_count = 0;
    for (const auto& h : r.heads) layer_count = std::max(layer_count, h.layer + 1);
    std::string per_layer;
    double best_share = 0;
    std::string best_head = "-";
    for (std::size_t l = 0; l < layer_count; ++l) {
        std::vector<bool> any;
        for (const auto& h : r.heads) {
            if (h.layer != l || !h.per_token_copying) continue;
            const auto& c = *h.per_token_copying;
            if (any.empty()) any.assign(c.top1.size(), false);
            for (std::size_t t = 0; t < c.top1.size() && t < any.size(); ++t) any[t] = any[t] || c.top1[t];
            if (c.top1_share > best_share) best_share = c.top1_share, best_head = head_name(h.layer, h.head);
        }
        if (any.empty()) continue;
        const auto copied = static_cast<double>(std::count(any.begin(), any.end(), true));
        per_layer += format("%slayer %zu: %.2f", per_layer.empty() ? "" : "; ", l, copied / static_cast<double>(any.size()));
    }
    if (per_layer.empty())
        s += "- **Does one head copy every token (Question 2)?** Not measured: no per-token copying (" + (r.heads.empty() ? std::string() : "see the undecided copy labels") + ").\n";
    else
        s += format("- **Does one head copy every token (Question 2, Experiment 6)?** The best single head, %s, ranks %.2f of the tokens it reads first "
                    "in its own row; the union over each layer's heads: %s.\n",
                    best_head.c_str(), best_share, per_layer.c_str());
    return s + "\n";
}

/// The whole report as Markdown text.
inline std::string scan_markdown(const scan_result& r, const markdown_options& o)
{
    using report::format;
    std::string s = "# qkov scan of " + o.model_path + "\n\n";
    s += format("Layers %zu-%zu: %zu heads, %zu composition pairs.\n\n", o.first_layer, o.last_layer, r.heads.size(), r.composition.size());
    s += "The labels are hypotheses about behaviour on " + r.input + " (`qkov detect --scan` judges them on it).\n\n";

    s += "## Model\n\n";
    report::table model({"field", "value"});
    for (const auto& [field, value] : o.model_summary) model.add_row({field, value});
    s += model.markdown() + "\n";

    s += "## Conventions\n\n";
    s += "Every metric is computed in float64 from the stored weights, but for the per-token copying's two bulk products and the "
         "composition's layer-pair product, which run in float32 unless the scan ran with --precision float64: every comparison "
         "float32's rounding bound leaves open is decided again in float64, so the copying shares and the circuits' partners are the "
         "float64 scan's (the median margins, partner shares and composition scores are float32's, each score within its bound: the "
         "JSON's composition.largest_bound). docs/SCAN-LABELS.md in the qkov sources gives each label's tests and thresholds. Heads "
         "are named layer.head (0-based).\n\n";
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

    s += seeds_answered(r);
    s += detail::circuits_section(r);

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
                       c.t3_singular_values().size() ? format("%.4g", c.t3_singular_values()(0)) : std::string("-")});
    }
    s += table.markdown() + "\n";
    s += detail::figures_on(o, figure_topic::composition);
    return s;
}

} // namespace qkov::scan
