// The scan's figures: what a reader would rather look at than read in the JSON.
//
// - one layer x head heatmap per main metric (rows are layers, columns heads), a head without the
//   value (a rank-deficient W_q for the condition number, a file without W_E for the copying
//   score) drawn grey, not as a number;
// - the composition graph as a source head x target head heatmap of the strongest of the Q, K
//   and V scores (composition_edges.hpp), and one per kind; pairs that cannot compose (target not
//   in a later layer) grey, on a log colour scale when the scores span a decade. Both axes name heads "layer.head", with a tick at each layer's head 0;
// - the circuits (circuit_search.hpp) as a graph over layer and head: every head a grey dot, the
//   strongest composition edges in grey, and each labelled circuit's edges apart from them, one
//   colour per role (what its query reads, its key reads, what it writes), its head marked;
// - per head with a RoPE offset profile (the positional heads, head_structure.hpp), its score
//   against the offset, log offset axis, the score at offset 0 as a reference line; per head
//   found by the bottom-heavy search (R12), the QK energy share of each RoPE pair, slow pairs in their own colour,
//   against the share every pair would have with energy spread evenly.
//
// File names are fixed by what they show (`cond_q.png`, `offset_profile_3.5.png`, ...), so a
// report that links them stays valid when the scan is run again. A figure with no value to draw
// (every head rank-deficient, no copying score, a single layer without pairs) is left out, and
// write_scan_figures lists only the files it wrote.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "qkov/report/heatmap.hpp"
#include "qkov/report/layer_head_heatmap.hpp"
#include "qkov/report/line_plot.hpp"
#include "qkov/report/number_text.hpp"
#include "qkov/scan/composition_edges.hpp"
#include "qkov/scan/scan_result.hpp"

namespace qkov::scan {

/// What a figure is about: the report puts it beside the matching table.
enum class figure_topic { heads, composition, structure };

/// One written figure: its file name (inside the figures directory) and what it shows.
struct scan_figure {
    std::string file, caption;
    figure_topic topic = figure_topic::heads;
    std::optional<std::pair<std::size_t, std::size_t>> head{};  ///< (layer, head) of a per-head figure
};

using report::head_grid;
using report::index_ticks;

/// The metric `value` of every head of `heads`, on the grid of the layers they span.
inline head_grid layer_head_grid(const std::vector<head_metrics>& heads, const std::function<std::optional<double>(const head_metrics&)>& value)
{
    head_grid g;
    if (heads.empty()) return g;
    std::size_t last = 0;
    g.first_layer = heads.front().layer;
    for (const auto& h : heads) g.first_layer = std::min(g.first_layer, h.layer), last = std::max(last, h.layer), g.heads = std::max(g.heads, h.head + 1);
    g.layers = last - g.first_layer + 1;
    g.values.assign(g.layers * g.heads, 0.0);
    g.present.assign(g.layers * g.heads, false);
    for (const auto& h : heads)
        if (const auto v = value(h)) {
            const std::size_t i = (h.layer - g.first_layer) * g.heads + h.head;
            g.values[i] = *v, g.present[i] = true;
        }
    return g;
}

/// The heads of a scan in its order (layer, then head), as positions along a composition axis.
struct head_axis {
    std::vector<std::pair<std::size_t, std::size_t>> heads;  ///< (layer, head) at each position
    std::map<std::pair<std::size_t, std::size_t>, std::size_t> position;

    explicit head_axis(const std::vector<head_metrics>& scanned)
    {
        for (const auto& h : scanned) position.emplace(std::pair(h.layer, h.head), heads.size()), heads.emplace_back(h.layer, h.head);
    }

    /// A tick at head 0 of every layer (of every k-th layer when there are many), named "L.0".
    [[nodiscard]] std::vector<report::axis_tick> layer_ticks(std::size_t max_labels = 12) const
    {
        std::vector<std::size_t> starts;
        for (std::size_t i = 0; i < heads.size(); ++i)
            if (i == 0 || heads[i].first != heads[i - 1].first) starts.push_back(i);
        auto picked = index_ticks(starts.size(), max_labels, [](std::size_t) { return std::string(); });
        for (auto& t : picked) {
            const std::size_t i = starts[static_cast<std::size_t>(t.value)];
            t = {static_cast<double>(i), head_name(heads[i].first, heads[i].second), true};
        }
        return picked;
    }
};

/// True when the present values are all positive and the largest is at least ten times the
/// smallest: a log colour scale then labels a power of ten and separates the small values; within
/// one decade it would show no number at all.
inline bool spans_a_decade(const std::vector<double>& values, const std::vector<bool>& present)
{
    double lo = 0, hi = 0;
    bool first = true;
    for (std::size_t i = 0; i < values.size(); ++i)
        if (present[i]) lo = first ? values[i] : std::min(lo, values[i]), hi = first ? values[i] : std::max(hi, values[i]), first = false;
    return !first && lo > 0 && hi >= 10 * lo;
}

namespace detail {

struct grid_figure {
    std::string file, title, colour_label;
    std::function<std::optional<double>(const head_metrics&)> value;
    report::scale_kind scale = report::scale_kind::linear;
    std::optional<double> colour_min{}, colour_max{};
};

inline std::optional<scan_figure> draw_grid(const std::vector<head_metrics>& heads, const grid_figure& f, const std::filesystem::path& dir)
{
    const auto g = layer_head_grid(heads, f.value);
    if (!g.any()) return std::nullopt;
    report::heatmap_options o;
    o.title = f.title, o.colour_label = f.colour_label;
    o.colour_scale = f.scale, o.colour_min = f.colour_min, o.colour_max = f.colour_max;
    // A log colour bar labels powers of ten only: within one decade it would show no number.
    if (f.scale == report::scale_kind::log10 && !spans_a_decade(g.values, g.present)) o.colour_scale = report::scale_kind::linear;
    report::save_layer_head_heatmap(g, std::move(o), dir / f.file);
    return scan_figure{f.file, f.title, figure_topic::heads};
}

inline std::optional<scan_figure> draw_composition(const scan_result& r, const head_axis& axis, const std::string& file, const std::string& title,
                                                   const std::function<double(const composition_score&)>& score, const std::filesystem::path& dir)
{
    if (r.composition.empty()) return std::nullopt;
    const std::size_t n = axis.heads.size();
    std::vector<double> values(n * n, 0.0);
    std::vector<bool> present(n * n, false);
    for (const auto& c : r.composition) {
        const std::size_t i = axis.position.at({c.source_layer, c.source_head}) * n + axis.position.at({c.target_layer, c.target_head});
        values[i] = score(c), present[i] = true;
    }
    report::heatmap_options o;
    o.title = title, o.colour_label = "composition score", o.x_label = "target head (layer.head)", o.y_label = "source head (layer.head)";
    // Most pairs compose weakly and a few strongly: a log scale shows both when the scores span a
    // decade (a zero score, from a zero circuit, keeps the scale linear from 0).
    if (spans_a_decade(values, present)) o.colour_scale = report::scale_kind::log10;
    else o.colour_min = 0.0;
    o.masked = [&present, n](std::size_t row, std::size_t column) { return !present[row * n + column]; };
    o.row_ticks = o.column_ticks = axis.layer_ticks();
    report::heatmap(n, n, std::move(values), std::move(o)).save(dir / file);
    return scan_figure{file, title, figure_topic::composition};
}

} // namespace detail

/// The offset profile of a head with one (a positional RoPE head): s(delta) for delta = 1 .. N on
/// a log offset axis, s(0) as a reference line, the best offset marked. Throws
/// std::invalid_argument when the head has no profile.
inline scan_figure write_offset_profile(const head_metrics& h, const std::filesystem::path& dir)
{
    const auto& p = h.structure.profile;
    if (!p || p->score.size() < 2)
        throw std::invalid_argument("qkov: head " + head_name(h.layer, h.head) + " has no offset profile to draw");
    const std::string name = head_name(h.layer, h.head);
    std::string title = name + ": score of the constant it reads, best offset " + std::to_string(p->best);
    if (p->certificate) title += std::string(" (certificate ") + status_name(p->certificate->status) + ")";
    report::line_plot plot({.title = title, .x_label = "offset n - m", .y_label = "score q0^T R k0", .x_scale = report::scale_kind::log10});
    std::vector<double> x, y;
    for (std::size_t delta = 1; delta < p->score.size(); ++delta) x.push_back(static_cast<double>(delta)), y.push_back(p->score[delta]);
    plot.add_series("s(offset)", x, y);
    plot.add_series("s(0)", {x.front(), x.back()}, {p->score[0], p->score[0]}, {.line_width = 1});
    if (p->best >= 1) plot.add_series("best offset", {static_cast<double>(p->best)}, {p->score[p->best]}, {.line_width = 0, .markers = true});
    const std::string file = "offset_profile_" + name + ".png";
    plot.save(dir / file);
    return {file, name + " offset profile", figure_topic::structure, std::pair(h.layer, h.head)};
}

/// The QK energy share of each RoPE pair of a head (slow pairs marked), against the even spread
/// 2 / d per pair. Throws std::invalid_argument when the head has no RoPE structure.
inline scan_figure write_pair_energy(const head_metrics& h, const std::filesystem::path& dir)
{
    const auto& r = h.structure.rope;
    if (!r || r->pairs.empty()) throw std::invalid_argument("qkov: head " + head_name(h.layer, h.head) + " has no RoPE pairs to draw");
    const std::string name = head_name(h.layer, h.head);
    std::string title = name + ": QK energy per RoPE pair, slow share " + report::format("%.2f", r->slow_share);
    if (r->unrotated_share > 0) title += report::format(" (unrotated %.2f)", r->unrotated_share);
    report::line_plot plot({.title = title, .x_label = "RoPE pair (slowest last)", .y_label = "share of the QK energy"});
    std::vector<double> all_x, all_y, slow_x, slow_y;
    for (const auto& pair : r->pairs) {
        all_x.push_back(static_cast<double>(pair.pair)), all_y.push_back(pair.energy_share);
        if (pair.slow) slow_x.push_back(static_cast<double>(pair.pair)), slow_y.push_back(pair.energy_share);
    }
    plot.add_series("every pair", all_x, all_y, {.markers = true});
    if (!slow_x.empty()) plot.add_series("slow pairs", slow_x, slow_y, {.line_width = 0, .markers = true});
    const double even = 2.0 / static_cast<double>(h.qk.singular_values.size());  // d dimensions, two per pair
    plot.add_series("even spread", {all_x.front(), all_x.back()}, {even, even}, {.line_width = 1});
    const std::string file = "pair_energy_" + name + ".png";
    plot.save(dir / file);
    return {file, name + " energy per RoPE pair", figure_topic::structure, std::pair(h.layer, h.head)};
}

/// The circuit graph (above): `edges` strongest composition edges behind the circuits. Throws
/// std::invalid_argument when the scan has no pairs (one layer: nothing composes).
inline scan_figure write_circuit_graph(const scan_result& r, const std::filesystem::path& dir, std::size_t edges = 20)
{
    if (r.composition.empty()) throw std::invalid_argument("qkov: the scan has no composition pairs to draw a circuit graph of");
    std::size_t circuits = 0;
    for (const auto& h : r.heads) circuits += h.circuits && h.circuits->circuit && h.labels.labels.end() != std::find(h.labels.labels.begin(), h.labels.labels.end(), h.circuits->circuit->label);
    const std::string title = circuits == 0 ? "composition graph: no circuit found" : report::format("composition graph: %zu circuits", circuits);
    report::line_plot plot({.title = title, .x_label = "layer", .y_label = "head", .legend = report::legend_position::upper_right});
    std::vector<double> x, y;
    double top = 0;
    for (const auto& h : r.heads) x.push_back(static_cast<double>(h.layer)), y.push_back(static_cast<double>(h.head)), top = std::max(top, y.back());
    // Room above the heads for the legend: invisible points that only widen the head axis.
    plot.add_series("", {x.front(), x.back()}, {-0.3, top + 0.3 + 0.5 * (top + 1)}, {.line_width = 0, .in_legend = false});
    plot.add_series("heads", x, y, {.colour = report::rgb{170, 170, 170}, .line_width = 0, .markers = true});
    // A side's edges shifted a little up or down at both ends, so the query's, the key's and the
    // value's edges from one partner stay apart where they run side by side.
    const auto segment = [](std::vector<double>& xs, std::vector<double>& ys, std::size_t l1, std::size_t h1, std::size_t l2, std::size_t h2, double shift = 0) {
        xs.insert(xs.end(), {static_cast<double>(l1), static_cast<double>(l2)}),
            ys.insert(ys.end(), {static_cast<double>(h1) + shift, static_cast<double>(h2) + shift});
    };
    std::vector<double> ex, ey;
    for (const auto& e : strongest_edges(r.composition, edges)) segment(ex, ey, e.pair->source_layer, e.pair->source_head, e.pair->target_layer, e.pair->target_head);
    if (!ex.empty()) plot.add_series("strongest composition edges", ex, ey, {.colour = report::rgb{200, 200, 200}, .line_width = 1, .segments = true});
    std::vector<double> qx, qy, kx, ky, vx, vy, hx, hy;
    for (const auto& h : r.heads) {
        if (!h.circuits || !h.circuits->circuit) continue;
        const auto& c = *h.circuits->circuit;
        if (std::find(h.labels.labels.begin(), h.labels.labels.end(), c.label) == h.labels.labels.end()) continue;
        for (const auto& p : c.circuit.query.partners) segment(qx, qy, p.layer, p.head, h.layer, h.head, 0.06);
        for (const auto& p : c.circuit.key.partners) segment(kx, ky, p.layer, p.head, h.layer, h.head);
        if (c.output)
            for (const auto& p : c.output->value.partners) segment(vx, vy, p.layer, p.head, h.layer, h.head, -0.06);
        hx.push_back(static_cast<double>(h.layer)), hy.push_back(static_cast<double>(h.head));
    }
    if (!qx.empty()) plot.add_series("what a circuit's query reads", qx, qy, {.colour = report::series_palette[1], .line_width = 3, .segments = true});
    if (!kx.empty()) plot.add_series("what its key reads", kx, ky, {.colour = report::series_palette[0], .line_width = 3, .segments = true});
    if (!vx.empty()) plot.add_series("what it writes (V-composition)", vx, vy, {.colour = report::series_palette[2], .line_width = 3, .segments = true});
    if (!hx.empty()) plot.add_series("circuit heads", hx, hy, {.colour = report::series_palette[6], .line_width = 0, .markers = true});
    const std::string file = "circuits.png";
    plot.save(dir / file);
    return {file, title, figure_topic::composition};
}

/// Draws every figure of `r` into `dir` (created if absent) and lists what it wrote, in order.
/// Throws std::runtime_error naming the file that could not be written.
inline std::vector<scan_figure> write_scan_figures(const scan_result& r, const std::filesystem::path& dir)
{
    std::filesystem::create_directories(dir);
    using report::scale_kind;
    const auto log_top = [](const vector& s) -> std::optional<double> {
        if (s.size() == 0 || !(s(0) > 0)) return std::nullopt;  // a zero circuit has no value on a log scale
        return s(0);
    };
    const std::vector<detail::grid_figure> grids{
        {"cond_q.png", "condition number of W_Q (grey: rank-deficient)", "sigma_max / sigma_min",
         [](const head_metrics& h) { return h.q.condition; }, scale_kind::log10},
        {"cond_k.png", "condition number of W_K (grey: rank-deficient)", "sigma_max / sigma_min",
         [](const head_metrics& h) { return h.k.condition; }, scale_kind::log10},
        {"qk_top_singular_value.png", "largest singular value of the QK circuit", "sigma_1(W_Q W_K^T)",
         [&](const head_metrics& h) { return log_top(h.qk.singular_values); }, scale_kind::log10},
        {"ov_top_singular_value.png", "largest singular value of the OV circuit", "sigma_1(W_V W_O)",
         [&](const head_metrics& h) { return log_top(h.ov.singular_values); }, scale_kind::log10},
        {"ov_identity_distance.png", "OV distance from identity over its floor sqrt(D - d)", "||W_V W_O - I||_F / sqrt(D - d)",
         [](const head_metrics& h) -> std::optional<double> {
             if (!(h.ov_identity_floor > 0)) return std::nullopt;  // D = d: no floor to compare with
             return h.ov_identity_distance / h.ov_identity_floor;
         }},
        {"copying_score.png", "copying score, unembedding centred (1: copies every token it reads)", "Re(sum lambda) / sum |lambda|",
         [](const head_metrics& h) { return h.centred_copying_score; }, scale_kind::linear, -1.0, 1.0},
        {"one_direction_q.png", "share of W_Q in its top direction (claim R7)", "sigma_1^2 / sum sigma_i^2",
         [](const head_metrics& h) -> std::optional<double> { return h.structure.one_direction_q; }, scale_kind::linear, 0.0, 1.0},
        {"one_direction_k.png", "share of W_K in its top direction (claim R7)", "sigma_1^2 / sum sigma_i^2",
         [](const head_metrics& h) -> std::optional<double> { return h.structure.one_direction_k; }, scale_kind::linear, 0.0, 1.0},
        {"predicted_previous_token.png", "predicted previous-token score (docs/SCAN-LABELS.md)", "attention on key m - 1, queries 1 .. N",
         [](const head_metrics& h) -> std::optional<double> {
             if (!h.mean_field) return std::nullopt;
             return h.mean_field->previous;
         }, scale_kind::linear, 0.0, 1.0},
    };
    std::vector<scan_figure> written;
    for (const auto& g : grids)
        if (auto f = detail::draw_grid(r.heads, g, dir)) written.push_back(std::move(*f));

    const head_axis axis(r.heads);
    const std::vector<std::tuple<std::string, std::string, std::function<double(const composition_score&)>>> graphs{
        {"composition_strongest.png", "composition: strongest of Q, K, V per pair", [](const composition_score& c) { return strongest_kind(c).score; }},
        {"composition_q.png", "Q-composition", [](const composition_score& c) { return c.q; }},
        {"composition_k.png", "K-composition", [](const composition_score& c) { return c.k; }},
        {"composition_v.png", "V-composition", [](const composition_score& c) { return c.v; }},
    };
    for (const auto& [file, title, score] : graphs)
        if (auto f = detail::draw_composition(r, axis, file, title, score, dir)) written.push_back(std::move(*f));
    if (!r.composition.empty()) written.push_back(write_circuit_graph(r, dir));

    // The per-pair energy is the bottom-heavy search's evidence (claim R12): drawn for the heads it finds.
    const auto found_by = [](const head_metrics& h, const std::string& search) {
        return std::find(h.labels.seed_searches.begin(), h.labels.seed_searches.end(), search) != h.labels.seed_searches.end();
    };
    for (const auto& h : r.heads) {
        if (h.structure.profile && h.structure.profile->score.size() >= 2) written.push_back(write_offset_profile(h, dir));
        if (found_by(h, "bottom_heavy") && h.structure.rope && !h.structure.rope->pairs.empty()) written.push_back(write_pair_energy(h, dir));
    }
    return written;
}

} // namespace qkov::scan
