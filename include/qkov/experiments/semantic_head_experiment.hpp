// R10, R11, R13 (seed 000, Experiment 3 and the RoPE bottleneck; Experiments 4/5 without RoPE).
//
// R10: N random tokens x_i in R^D; a semantic vector s in R^d is written into x_{N-1}[0, d) and
// into x_i[d, 2d) for i < N - 1. W_Q = (diag(0_{d0} 1_{d-d0}) | 0) and W_K = (0 | diag(0_{d0} 1_{d-d0}) | 0):
// circuits/positional_heads.hpp's semantic_head reading the pairs l >= d0 / 2 (the head whose
// score R10's identity proves), instantiated with double, RoPE on queries and keys. A position-agnostic head would weigh keys 0 .. N-2 equally; the last query's
// attention shows how far each d0 is from that. R13: the same head without RoPE, and seed 000's
// recency construction (x_i = x, W_Q = W_K = (I_d | 0)) with and without RoPE.
// R11: how many of the d/2 pairs are usable over a window of N positions (cos(k theta_l) >= 1 - eps, certified).
#pragma once

#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "qkov/experiments/experiment.hpp"
#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/rope_window_bounds.hpp"
#include "qkov/experiments/seed_head_tensors.hpp"
#include "qkov/numeric/last_query_weights.hpp"
#include "qkov/numeric/qk_tensors.hpp"
#include "qkov/report/line_plot.hpp"
#include "qkov/scalar/interval.hpp"
#include "qkov/scalar/interval_functions.hpp"

namespace qkov::experiments {

namespace detail {

struct last_query_attention {
    std::vector<double> weights;  ///< over keys 0 .. N-1
    double log10_max_min_ratio;   ///< over keys 0 .. N-2 (the ones holding s)
    double entropy_nats;          ///< of the whole row
    double recent10_mass;         ///< keys N-10 .. N-1
};

inline last_query_attention attention_of_last_query(const numeric::tensor2<double>& tokens, const numeric::qk_tensors<double>& head,
                                                    bool with_rope)
{
    const std::size_t n = tokens.shape()[0];
    last_query_attention a{numeric::last_query_weights(tokens, head.w_q, head.w_k, with_rope, seed_layout, seed_angle_table(n)), 0, 0, 0};
    double top = 0, bottom = 1;
    for (std::size_t j = 0; j < n; ++j) {
        const double p = a.weights[j];
        if (p > 0) a.entropy_nats -= p * std::log(p);
        if (j + 10 >= n) a.recent10_mass += p;
        if (j + 1 < n) top = std::max(top, p), bottom = std::min(bottom, p);
    }
    a.log10_max_min_ratio = std::log10(top) - std::log10(bottom);
    return a;
}

/// Seed 000's recency construction: W_Q = W_K = (I_d | 0).
inline numeric::qk_tensors<double> recency_head_tensors()
{
    const auto reader = numeric::to_tensor(
        *std::make_unique<matrix<double, seed_head_width, seed_residual_width>>(coordinate_reader<double, seed_head_width, seed_residual_width>(0, 0)));
    return {reader, reader};
}

} // namespace detail

inline experiment_result run_semantic_head_experiment(const experiment_settings& settings)
{
    constexpr std::size_t D = seed_residual_width, d = seed_head_width;
    const std::size_t n = settings.size == experiment_size::full ? 1000 : 100;
    experiment_result result;
    result.id = "R10, R11, R13";
    result.title = "semantic heads under RoPE: the d0 sweep, the RoPE bottleneck, and heads without RoPE";
    result.command = "example_R10_semantic_head --out report";

    std::mt19937 gen(7);
    std::normal_distribution<double> normal;
    numeric::tensor2<double> tokens = numeric::tensor2<double>::from_shape({n, D});
    for (auto& x : tokens) x = normal(gen);
    std::vector<double> s(d);
    for (auto& v : s) v = normal(gen);
    for (std::size_t c = 0; c < d; ++c) {
        tokens(n - 1, c) = s[c];
        for (std::size_t i = 0; i + 1 < n; ++i) tokens(i, d + c) = s[c];
    }

    report::line_plot plot({.title = "Attention of the last query (N = " + std::to_string(n) + ", d = 64, D = 768)",
                            .x_label = "key position (keys holding s)", .y_label = "attention weight", .y_scale = report::scale_kind::log10});
    std::vector<double> positions(n - 1);
    for (std::size_t j = 0; j + 1 < n; ++j) positions[j] = double(j);

    text_table table({"head", "log10 max/min over keys 0..N-2", "entropy / ln N", "mass on 10 most recent keys"});
    auto add = [&](const std::string& name, const detail::last_query_attention& a) {
        table.add_row({name, format("%.3f", a.log10_max_min_ratio), format("%.4f", a.entropy_nats / std::log(double(n))),
                       format("%.4f", a.recent10_mass)});
        auto& j = result.numbers["d0_sweep"][name];
        j["log10_max_min_ratio"] = a.log10_max_min_ratio;
        j["entropy_nats"] = a.entropy_nats;
        j["recent10_mass"] = a.recent10_mass;
        j["weights"] = a.weights;
        // The keys holding s (the last key is the query's own, random, token); a log axis cannot show an exact 0.
        std::vector<double> floored(a.weights.begin(), a.weights.end() - 1);
        for (auto& w : floored) w = std::max(w, 1e-300);
        plot.add_series(name, positions, floored);
    };
    // Every d0 is even, a whole number of pairs: the head reads the pairs l >= d0 / 2.
    const std::size_t d0s[] = {0, d / 2, d - d / 4, d - d / 8, d - 2};
    std::vector<double> ratios;
    for (const std::size_t d0 : d0s) {
        const auto a = detail::attention_of_last_query(tokens, semantic_head_tensors(d0 / 2), true);
        ratios.push_back(a.log10_max_min_ratio);
        add("RoPE, d0 = " + std::to_string(d0), a);
    }
    const auto nope = detail::attention_of_last_query(tokens, semantic_head_tensors(0), false);
    add("no RoPE, d0 = 0", nope);
    result.check(ratios.back() < ratios.front(), "R10: reading only the last pair (d0 = d - 2) is closer to position-agnostic than all pairs (d0 = 0)");
    result.check(nope.log10_max_min_ratio < 1e-12, format("validation, R13: without RoPE keys 0..N-2 get equal weight (log10 max/min %.1e)", nope.log10_max_min_ratio));
    result.tables.push_back(table);
    result.add_figure(plot, settings.out_dir, "R10_semantic_head_d0_sweep.png");

    // R13: seed 000's recency construction, x_i = x for all i, W_Q = W_K = (I_d | 0).
    numeric::tensor2<double> same = numeric::tensor2<double>::from_shape({n, D});
    for (std::size_t c = 0; c < D; ++c) {
        const double v = normal(gen);
        for (std::size_t i = 0; i < n; ++i) same(i, c) = v;
    }
    const auto recency_head = detail::recency_head_tensors();
    const auto recency_rope = detail::attention_of_last_query(same, recency_head, true);
    const auto recency_nope = detail::attention_of_last_query(same, recency_head, false);
    text_table recency({"x_i = x, W_Q = W_K = (I | 0)", "weight on itself", "mass on 10 most recent keys", "entropy / ln N"});
    for (const auto& [name, a] : {std::pair{"RoPE", recency_rope}, std::pair{"no RoPE", recency_nope}})
        recency.add_row({name, format("%.4g", a.weights.back()), format("%.4f", a.recent10_mass), format("%.4f", a.entropy_nats / std::log(double(n)))});
    result.tables.push_back(recency);
    result.numbers["recency"]["rope_self_weight"] = recency_rope.weights.back();
    result.numbers["recency"]["nope_self_weight"] = recency_nope.weights.back();
    result.check(std::abs(recency_nope.weights.back() * double(n) - 1) < 1e-9, "validation, R13: without RoPE identical tokens get uniform attention 1/N");
    double rope_max = 0;
    for (const double w : recency_rope.weights) rope_max = std::max(rope_max, w);
    result.check(recency_rope.weights.back() == rope_max, "R8/R13: with RoPE the weight is largest on the query's own position");

    // R11: the certified count of usable pairs (circuits/rope_window_bounds.hpp, the same function
    // proofs/R11_semantic_pair_count.cpp asserts on), here for more windows and tolerances.
    const auto seed_angles = standard_angles<interval, seed_rope_setting>();
    const auto llama3_angles = standard_angles<interval, llama3_rope_setting>();
    text_table bottleneck({"window N", "d = 64, base 1e4, eps = 0.01", "d = 64, base 1e4, eps = 0.1", "d = 128, base 5e5, eps = 0.01",
                           "d = 128, base 5e5, eps = 0.1"});
    auto cell = [](const semantic_pair_count& c) {
        return c.undecided == 0 ? std::to_string(c.usable) : format("%zu (+%zu undecided)", c.usable, c.undecided);
    };
    for (const std::int64_t window : {20, 1000, 4096, 32768}) {
        const semantic_pair_count counts[] = {usable_semantic_pairs<interleaved_layout(64)>(seed_angles, window, 0.01, 40),
                                              usable_semantic_pairs<interleaved_layout(64)>(seed_angles, window, 0.1, 40),
                                              usable_semantic_pairs<interleaved_layout(128)>(llama3_angles, window, 0.01, 40),
                                              usable_semantic_pairs<interleaved_layout(128)>(llama3_angles, window, 0.1, 40)};
        bottleneck.add_row({std::to_string(window), cell(counts[0]), cell(counts[1]), cell(counts[2]), cell(counts[3])});
        for (std::size_t c = 0; c < 4; ++c) result.numbers["bottleneck"][std::to_string(window)].push_back(counts[c].usable);
    }
    result.tables.push_back(bottleneck);
    result.paragraphs.push_back(format(
        "R10 with N = %zu tokens: the first table gives, per d0, how unequal the last query's attention over the %zu keys holding "
        "s is (log10 of max/min weight; 0 is position-agnostic), its entropy relative to uniform, and its mass on the 10 most "
        "recent keys. Scores are unscaled, as in the seed's construction. Without RoPE the same head is exactly "
        "position-agnostic (R13).", n, n - 1));
    result.paragraphs.push_back("R11: the last table counts the pairs l usable for semantic matching over a window of N "
                                "positions: cos(k theta_l) >= 1 - eps for every offset 1 <= k <= N, so the pair's share of a "
                                "score moves by at most eps of its energy. The counts are certified (interval arithmetic, "
                                "usable_semantic_pairs); the dimensions left for semantic matching are twice the count.");
    result.write_json(settings.out_dir, "R10_R11_R13_semantic_head");
    return result;
}

} // namespace qkov::experiments
