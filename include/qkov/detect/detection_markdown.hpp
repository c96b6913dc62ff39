// The detection's Markdown report and the tables it (and `qkov detect`'s terminal output) is made
// of: every head's behaviour, the rules, the text beside the random tokens, and the weights against
// the behaviour. A renderer of results only, so the tool and the Python module write the same
// report (Detection.markdown()).
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "qkov/detect/detection_figures.hpp"
#include "qkov/detect/detection_result.hpp"
#include "qkov/detect/scan_labels.hpp"
#include "qkov/detect/weights_vs_behaviour.hpp"
#include "qkov/model/head_name.hpp"
#include "qkov/report/joined_text.hpp"
#include "qkov/report/number_text.hpp"
#include "qkov/report/table.hpp"

namespace qkov::detect {

/// The tables and lines a detection is shown in, for the report below and the terminal.
namespace detection_tables {

using model::head_name;

/// `items` listed in one line, `none` when there are none.
inline std::string joined(const std::vector<std::string>& items, const char* none = "-") { return items.empty() ? none : report::joined(items); }

inline std::string score_cell(const score_statistics& s) { return report::format("%.3f ± %.3f", s.mean, s.spread); }

/// The head's strongest offset, as "k: mean".
inline std::string strongest_offset(const head_behaviour& h)
{
    std::size_t best = 0;
    for (std::size_t k = 1; k < h.by_offset.size(); ++k)
        if (h.by_offset[k].mean > h.by_offset[best].mean) best = k;
    return std::to_string(best) + ": " + report::format("%.3f", h.by_offset[best].mean);
}

/// The behaviours a head shows, then those it is undecided on, each marked "?".
inline std::string shows_cell(const head_behaviour& h)
{
    std::vector<std::string> items = h.behaviours;
    for (const auto& u : h.undecided) items.push_back(u + "?");
    return joined(items);
}

inline std::string copying_cell(const head_behaviour& h)
{
    if (!h.copying) return "-";
    return report::format("%.2f / %.2f", h.copying->top1_share(), h.copying->bottom_share()) + " of " + std::to_string(h.copying->queries);
}

inline report::table heads_table(const detection_result& r)
{
    using report::column_alignment;
    report::table t({"head", "previous_token", "duplicate_token", "induction", "shift -1", "shift 2", "BOS", "top offset", "copy / suppress", "shows"},
                    {column_alignment::left, column_alignment::right, column_alignment::right, column_alignment::right, column_alignment::right,
                     column_alignment::right, column_alignment::right, column_alignment::right, column_alignment::right, column_alignment::left});
    for (const auto& h : r.per_head)
        t.add_row({head_name(h.layer, h.head), score_cell(h.previous_token), score_cell(h.duplicate_token), score_cell(h.induction),
                   report::format("%.3f", h.shift(-1).mean), report::format("%.3f", h.shift(2).mean), report::format("%.3f", h.bos.mean),
                   strongest_offset(h), copying_cell(h), shows_cell(h)});
    return t;
}

/// The random tokens' and the text's value of a score, "random / text".
inline std::string beside_cell(double random, double text) { return report::format("%.3f / %.3f", random, text); }

inline std::string copy_share(const head_behaviour& h) { return h.copying && h.copying->queries > 0 ? report::format("%.2f", h.copying->top1_share()) : "-"; }

/// Every head on random tokens beside the same head on text: the scores the two share, each cell
/// "on random tokens / on text", and the behaviours each shows.
inline report::table beside_table(const detection_result& random, const detection_result& text)
{
    using report::column_alignment;
    report::table t({"head", "previous_token", "duplicate_token", "induction", "BOS", "top offset", "copy share", "shows on random tokens", "shows on text"},
                    {column_alignment::left, column_alignment::right, column_alignment::right, column_alignment::right, column_alignment::right,
                     column_alignment::right, column_alignment::right, column_alignment::left, column_alignment::left});
    for (const auto& h : text.per_head) {
        const auto* r = random.find(h.layer, h.head);
        if (r == nullptr) continue;
        t.add_row({head_name(h.layer, h.head), beside_cell(r->previous_token.mean, h.previous_token.mean), beside_cell(r->duplicate_token.mean, h.duplicate_token.mean),
                   beside_cell(r->induction.mean, h.induction.mean), beside_cell(r->bos.mean, h.bos.mean), strongest_offset(*r) + " / " + strongest_offset(h),
                   copy_share(*r) + " / " + copy_share(h), shows_cell(*r), shows_cell(h)});
    }
    return t;
}

/// The line above the beside table: what each cell holds.
inline std::string beside_heading(const detection_result& random, const detection_result& text)
{
    return "every head on random tokens / on " + text.input + " (means over " + std::to_string(random.samples) + " and " + std::to_string(text.samples) +
           " sequences; " + text.input + ": " + std::to_string(text.sequences.empty() ? 0 : text.sequences.front().size()) + " tokens in the first):";
}

inline report::table rules_table(const detection_result& r)
{
    report::table t({"behaviour", "measure", "threshold", "why"}, std::vector(4, report::column_alignment::left));
    for (const auto& rule : r.rules) t.add_row({rule.name, rule.measure, report::format("%.4f", rule.threshold), rule.reason});
    return t;
}

inline report::table side_by_side_table(const std::vector<weight_labels>& scanned, const detection_result& r, const comparison& c)
{
    report::table t({"head", "weight labels", "shows", "verdicts"}, std::vector(4, report::column_alignment::left));
    for (const auto& w : scanned) {
        const auto* h = r.find(w.layer, w.head);
        if (h == nullptr) continue;
        std::vector<std::string> verdicts;
        for (const auto& v : c.verdicts)
            if (v.layer == w.layer && v.head == w.head)
                verdicts.push_back(v.label + (v.certified ? " (certified)" : "") + ": " + verdict_name(v.outcome));
        if (w.labels.empty() && h->behaviours.empty() && h->undecided.empty()) continue;  // nothing on either side
        t.add_row({head_name(w.layer, w.head), joined(w.labels), shows_cell(*h), joined(verdicts)});
    }
    return t;
}

/// The confusion counts per label that has any, and their total (the JSON keeps every label's).
inline report::table counts_table(const comparison& c)
{
    report::table t({"weight label", "confirmed", "contradicted", "certified contradicted", "missed", "undecided", "not tested"},
                    {report::column_alignment::left, report::column_alignment::right, report::column_alignment::right, report::column_alignment::right,
                     report::column_alignment::right, report::column_alignment::right, report::column_alignment::right});
    const auto row = [&t](const label_counts& x) {
        t.add_row({x.label, std::to_string(x.confirmed), std::to_string(x.contradicted), std::to_string(x.certified_contradicted), std::to_string(x.missed),
                   std::to_string(x.undecided), std::to_string(x.not_tested)});
    };
    for (const auto& x : c.per_label)
        if (x.confirmed + x.contradicted + x.missed + x.not_tested + x.undecided > 0) row(x);
    row(c.total());
    return t;
}

/// Every certified label that behaviour contradicts, as "0.3 previous_token"; empty when none.
inline std::vector<std::string> certified_contradictions(const comparison& c)
{
    std::vector<std::string> out;
    for (const auto& v : c.verdicts)
        if (v.certified && v.outcome == verdict::contradicted) out.push_back(head_name(v.layer, v.head) + " " + v.label);
    return out;
}

inline std::string counts_line(const comparison& c)
{
    const auto t = c.total();
    return std::to_string(c.heads_compared) + " heads compared: " + std::to_string(t.confirmed) + " weight labels confirmed, " +
           std::to_string(t.contradicted) + " contradicted (" + std::to_string(t.certified_contradicted) + " of them certified), " +
           std::to_string(t.undecided) + " undecided (the behaviour's 95 % interval holds its threshold), " + std::to_string(t.not_tested) +
           " not tested; " + std::to_string(t.missed) + " behaviours whose label the head lacks (missed)";
}

/// Which heads show each behaviour, one line per rule.
inline std::string shown_lines(const detection_result& r)
{
    std::string out;
    for (const auto& rule : r.rules) {
        std::vector<std::string> heads;
        for (const auto& h : r.per_head)
            if (h.shows(rule.name)) heads.push_back(head_name(h.layer, h.head));
        out += rule.name + " (>= " + report::format("%.3f", rule.threshold) + "): " + joined(heads, "no head") + "\n";
    }
    return out;
}

} // namespace detection_tables

/// What the report says besides the results: the model's path and architecture, the figures
/// written and the directory they are linked from (relative to the report; empty: beside it),
/// the scan document compared with.
struct detection_markdown_context {
    std::string model_path, architecture;
    std::vector<detection_figure> figures;
    std::string figure_directory;
    std::string scan_file;
};

/// The report: `r` on random tokens, `text` on text (or null), and with a scan its labels
/// `scanned` against the behaviour of `judged` (r or *text), compared as `c` (or null).
inline std::string detection_markdown(const detection_markdown_context& m, const detection_result& r, const detection_result* text,
                                      const std::vector<weight_labels>& scanned, const comparison* c, const detection_result& judged)
{
    using namespace detection_tables;
    const auto& figures = m.figures;
    const auto& figure_dir = m.figure_directory;
    std::ostringstream s;
    s << "# Head detection: " << m.model_path << "\n\n";
    s << "Model: " << m.architecture << ", " << r.layers << " layers x " << r.heads << " heads, vocabulary " << r.vocabulary
      << ".\n\n";
    s << "Each head's attention pattern on " << r.samples << " sequences [BOS] + r + r (|r| = " << r.length << " distinct random tokens, seed " << r.seed
      << ", BOS " << r.bos << "), as mean ± sample standard deviation over the sequences. A head *shows* a behaviour when the 95 % interval "
      << "of its mean (Student's t over the sequences) lies at or above the threshold, and is undecided on it (marked ?) when the interval holds "
      << "the threshold (docs/DETECT.md):\n\n"
      << rules_table(r).markdown() << "\n";
    std::size_t showing = 0;
    for (const auto& h : r.per_head) showing += h.behaviours.empty() ? 0 : 1;
    s << showing << " of " << r.per_head.size() << " heads show at least one behaviour.\n\n";
    const auto link = [&](const detection_figure& f) { return "![" + f.caption + "](" + (figure_dir.empty() ? f.file : figure_dir + "/" + f.file) + ")\n\n"; };
    for (const auto& f : figures)
        if (!text || !f.file.starts_with("text_")) s << link(f);
    s << "## Every head\n\n" << heads_table(r).markdown() << "\n";
    if (text) {
        s << "## On " << text->input << "\n\nThe same heads on " << text->samples << " sequences of " << text->input
          << " (every sequence's token ids are in the JSON). The repeat templates' attainable scores are the text's: the share of queries "
          << "whose token occurred earlier (docs/DETECT.md). " << beside_heading(r, *text) << "\n\n"
          << rules_table(*text).markdown() << "\n" << beside_table(r, *text).markdown() << "\n";
        for (const auto& f : figures)
            if (f.file.starts_with("text_")) s << link(f);
    }
    if (c) {
        s << "## Weights against behaviour\n\nWeight labels from `" << m.scan_file
          << "` (hypotheses from `qkov scan`, docs/SCAN-LABELS.md) beside the behaviours measured here on " << judged.input
          << ", the input the scan's labels predict. " << counts_line(*c) << ". Disagreements are findings about the model or the labels, not failures.\n\n";
        if (const auto bad = certified_contradictions(*c); !bad.empty())
            s << "**Certified labels that behaviour contradicts: " << report::joined(bad) << ".**\n\n";
        s << counts_table(*c).markdown() << "\n" << side_by_side_table(scanned, judged, *c).markdown() << "\n";
    }
    return s.str();
}

} // namespace qkov::detect
