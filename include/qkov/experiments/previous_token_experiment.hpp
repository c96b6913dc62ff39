// R6 (seed 001, Experiment 1): the previous-token head at alpha = 1, 10, 100, L = 20, D = 768,
// d = 64. Patterns as heatmaps, the previous-token mass of every row, and the mass elsewhere in
// log space (at alpha = 100 it is about 1e-47, below float32's range), in double and float32.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "qkov/experiments/experiment.hpp"
#include "qkov/experiments/seed_head_tensors.hpp"
#include "qkov/circuits/previous_token_bounds.hpp"
#include "qkov/scalar/interval.hpp"
#include "qkov/scalar/interval_functions.hpp"
#include "qkov/numeric/attention_mass.hpp"
#include "qkov/numeric/softmax.hpp"
#include "qkov/report/heatmap.hpp"

namespace qkov::experiments {

namespace detail {
inline std::vector<std::vector<double>> rows_of(const numeric::tensor2<double>& t)
{
    std::vector<std::vector<double>> rows(t.shape()[0], std::vector<double>(t.shape()[1]));
    for (std::size_t i = 0; i < t.shape()[0]; ++i)
        for (std::size_t j = 0; j < t.shape()[1]; ++j) rows[i][j] = t(i, j);
    return rows;
}

/// Certified enclosure of the worst row's previous-token mass (circuits/previous_token_bounds.hpp),
/// over outward-rounded intervals. The experiment's softmax takes the raw scores (no 1/sqrt(d)),
/// as the bound does, so alpha goes in unchanged.
inline previous_token_mass_bound certified_worst_row_mass(double alpha, std::size_t length)
{
    return certified_previous_token_mass<seed_layout>(seed_angles<interval>(), interval(alpha), static_cast<std::int64_t>(length));
}

/// log10 of a certified positive number, enclosed.
inline certified certified_log10(const certified& x)
{
    return certified(log(x.enclosure()) / log(interval(10.0)));
}
} // namespace detail

inline experiment_result run_previous_token_experiment(const experiment_settings& settings)
{
    constexpr std::size_t length = 20;
    const double alphas[] = {1.0, 10.0, 100.0};
    const double ln10 = std::log(10.0);

    experiment_result result;
    result.id = "R6";
    result.title = "the previous-token head at alpha = 1, 10, 100 (L = 20, D = 768, d = 64)";
    result.command = "example_R6_previous_token_head --out report";
    result.numbers["length"] = length;
    result.numbers["D"] = seed_residual_width;
    result.numbers["d"] = seed_head_width;

    text_table certified_table({"alpha", "worst-row mass (f64)", "certified lower bound", "log10 rest (f64)",
                                "certified upper bound of log10 rest", "f64 inside the certified enclosure"});
    text_table table({"query i", "p(i-1) a=1", "p(i-1) a=10", "p(i-1) a=100", "log10 rest a=100 (f64)", "log10 rest a=100 (f32)"});
    std::vector<std::vector<numeric::log_mass>> masses_by_alpha;
    std::vector<numeric::log_mass> float_masses;
    for (const double alpha : alphas) {
        const auto head = make_previous_token_weights<double>(alpha);
        const auto tokens = tokens_with_constant_coordinate<double>(length);
        const auto scores = previous_token_scores(tokens, head);
        auto pattern = scores;
        numeric::softmax_in_place(pattern, numeric::masking::causal);
        const auto masses = numeric::previous_token_log_masses(scores);
        masses_by_alpha.push_back(masses);

        const std::vector<double> cells(pattern.begin(), pattern.end());
        const report::heatmap map(length, length, cells,
                                  {.title = "Previous-token head, alpha = " + std::to_string(int(alpha)) + " (L = 20, D = 768, d = 64)",
                                   .colour_label = "attention weight",
                                   .colour_min = 0.0,
                                   .colour_max = 1.0,
                                   .masked = [](std::size_t query, std::size_t key) { return key > query; }});
        result.add_figure(map, settings.out_dir, "R6_pattern_alpha_" + std::to_string(int(alpha)) + ".png");

        auto& entry = result.numbers["alpha"][std::to_string(int(alpha))];
        entry["pattern"] = detail::rows_of(pattern);
        std::vector<double> on, off_log10;
        bool previous_is_argmax = true;
        for (const auto& m : masses) {
            on.push_back(std::exp(m.on));
            off_log10.push_back(m.off / ln10);
            for (std::size_t j = 0; j <= m.query; ++j) previous_is_argmax &= j == m.key || scores(m.query, j) < scores(m.query, m.key);
        }
        entry["previous_token_mass"] = on;
        entry["log10_mass_elsewhere"] = off_log10;
        result.check(previous_is_argmax, "alpha = " + std::to_string(int(alpha)) + ": every row's largest score is on the previous token");

        // The last row is the worst one (previous_token_bounds.hpp: every extra key adds a positive
        // term), so it is the one the certified enclosure is about.
        const auto& last = masses.back();
        const auto bound = detail::certified_worst_row_mass(alpha, length);
        const auto log10_rest = detail::certified_log10(bound.off_previous_mass);
        const double measured_mass = std::exp(last.on), measured_log10_rest = last.off / ln10;
        // float64 rounds the scores (up to alpha d/2) and their log-sum-exp to a few ulps of that
        // size, so the measured log masses carry that much absolute error; the enclosure, being
        // certified, carries none. Allow 64 ulps of the largest score, on the log scale.
        const double allowance = 64.0 * std::numeric_limits<double>::epsilon() * alpha * double(seed_head_width / 2);
        const interval log_mass_enclosure = log(bound.mass.enclosure());
        const interval log_rest_enclosure = log(bound.off_previous_mass.enclosure());
        const bool strictly_inside = bound.mass.lower <= measured_mass && measured_mass <= bound.mass.upper &&
                                     log10_rest.lower <= measured_log10_rest && measured_log10_rest <= log10_rest.upper;
        const bool inside_within_rounding =
            log_mass_enclosure.lo() - allowance <= last.on && last.on <= log_mass_enclosure.hi() + allowance &&
            log_rest_enclosure.lo() - allowance <= last.off && last.off <= log_rest_enclosure.hi() + allowance;
        double largest_off = -std::numeric_limits<double>::infinity();
        for (const auto& m : masses) largest_off = std::max(largest_off, m.off);
        result.check(largest_off <= last.off + allowance,
                     format("validation: alpha = %d: no row puts more mass off the previous token than the last one "
                            "(beyond float64 rounding), as the certified formula proves",
                            int(alpha)));
        result.check(inside_within_rounding,
                     format("validation: alpha = %d: the float64 worst-row log mass %.17g and log of the rest %.12f lie inside "
                            "the certified enclosures [%.17g, %.17g] and [%.12f, %.12f], widened by float64's rounding "
                            "of the scores (%.1e)",
                            int(alpha), last.on, last.off, log_mass_enclosure.lo(), log_mass_enclosure.hi(),
                            log_rest_enclosure.lo(), log_rest_enclosure.hi(), allowance));
        certified_table.add_row({std::to_string(int(alpha)), format("%.15f", measured_mass), format("%.15f", bound.mass.lower),
                                 format("%.6f", measured_log10_rest), format("%.6f", log10_rest.upper),
                                 strictly_inside ? "yes" : inside_within_rounding ? "within rounding" : "NO"});
        entry["worst_row"] = {{"query", last.query},
                              {"measured_mass", measured_mass},
                              {"measured_log10_mass_elsewhere", measured_log10_rest},
                              {"certified_mass", {bound.mass.lower, bound.mass.upper}},
                              {"certified_log10_mass_elsewhere", {log10_rest.lower, log10_rest.upper}},
                              {"float64_rounding_allowance_on_log_scale", allowance},
                              {"strictly_inside", strictly_inside}};

        if (alpha == 100.0) {
            const auto head_f = make_previous_token_weights<float>(alpha);
            const auto scores_f = previous_token_scores(tokens_with_constant_coordinate<float>(length), head_f);
            float_masses = numeric::previous_token_log_masses(scores_f);
            auto pattern_f = scores_f;
            numeric::softmax_in_place(pattern_f, numeric::masking::causal);
            std::size_t exact_ones = 0;
            for (const auto& m : float_masses) exact_ones += pattern_f(m.query, m.key) == 1.0f;
            std::vector<double> off_f;
            for (const auto& m : float_masses) off_f.push_back(m.off / ln10);
            result.numbers["float32_alpha_100"]["log10_mass_elsewhere"] = off_f;
            result.numbers["float32_alpha_100"]["rows_with_weight_exactly_1"] = exact_ones;
            result.paragraphs.push_back(format(
                "At alpha = 100 the float32 pattern holds exactly 1.0 on the previous token in %zu of %zu rows: the rest "
                "(about 10^%.1f) is below float32's smallest normal number 1.2e-38 and underflows. The table reports it "
                "as a log computed from the scores, which stays in range in both precisions.",
                exact_ones, float_masses.size(), off_f.back()));
        }
    }
    double largest_gap = 0;  // validation: float32 and float64 log masses agree
    for (std::size_t r = 0; r < float_masses.size(); ++r) {
        const auto& m = masses_by_alpha[2][r];
        largest_gap = std::max(largest_gap, std::abs(m.off - float_masses[r].off) / ln10);
        table.add_row({std::to_string(m.query), format("%.6f", std::exp(masses_by_alpha[0][r].on)),
                       format("%.10f", std::exp(masses_by_alpha[1][r].on)), format("%.15f", std::exp(m.on)),
                       format("%.4f", m.off / ln10), format("%.4f", float_masses[r].off / ln10)});
    }
    result.check(largest_gap < 1e-2, format("validation: float32 and float64 agree on log10 of the mass elsewhere within 0.01 (largest gap %.2e)", largest_gap));
    double worst100 = -1e300;
    for (const auto& m : masses_by_alpha[2]) worst100 = std::max(worst100, m.off / ln10);
    result.check(worst100 < -40, format("alpha = 100: the mass off the previous token is below 1e-40 in every row (largest 10^%.2f)", worst100));
    result.paragraphs.insert(result.paragraphs.begin(),
        format("Seed 001's construction (circuits/positional_heads.hpp, instantiated with double): W_k copies the constant coordinate "
               "x_0 = 1 onto every rotated pair and W_q = alpha R_{-1} W_k. Every row's largest score is on the previous token at "
               "each alpha; the mass there grows from %.3f (alpha = 1, last row) to 1 - 10^%.1f (alpha = 100, worst row). "
               "Rows start at query 1 (query 0 sees only itself).",
               std::exp(masses_by_alpha[0].back().on), worst100));
    result.paragraphs.push_back(
        "The worst row beside the certified enclosure of its previous-token mass (circuits/previous_token_bounds.hpp: "
        "1 / (1 + S) with S summed over the window in outward-rounded interval arithmetic; the softmax here takes the raw "
        "scores, as the bound does, so alpha enters unscaled). The float64 value must lie inside the enclosure: a "
        "validation of the run-time path against the certified one. \"within rounding\": outside the exact enclosure by no more than float64's rounding of scores of size alpha d/2 (the log-sum-exp subtracts numbers that large), which the check allows.");
    result.tables.push_back(certified_table);
    result.tables.push_back(table);
    result.write_json(settings.out_dir, "R6_previous_token_head");
    return result;
}

} // namespace qkov::experiments
