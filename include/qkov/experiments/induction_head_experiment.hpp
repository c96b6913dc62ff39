// T7 (seed 002, Exercise 3): the K-composition induction head under RoPE, built by hand from the
// library's constructions and run on repeated random token sequences.
//
// Residual stream (D = 768): coordinate 0 is the constant 1; coordinates 1 .. 64 hold the token's
// content e_t (a random unit vector per vocabulary entry); coordinates 65 .. 128 are empty.
//   head 1: seed 001's previous-token head (circuits/positional_heads.hpp, alpha = 100, RoPE),
//           with block_copy_head's OV (circuits/induction_heads.hpp) writing content 1 .. 64 into 65 .. 128:
//           after layer 1, token t carries the content of token t - 1.
//   head 2: W_Q reads the current content and W_K the previous-token content
//           (previous_content_match_head, offsets 1 and 65), scaled by beta = 20, under RoPE on the
//           pairs d0 .. d/2 - 1 only (d0 = 0: all pairs; the seed-000 semantic trick for larger d0),
//           or without RoPE. Its OV copies the attended token's content; the prediction is the
//           vocabulary entry whose embedding has the largest dot product with it.
// Sequences: a prefix of L/2 distinct tokens drawn from the whole vocabulary, repeated once. At a
// position t of the repeat, induction attends to t - L/2 + 1 and predicts its token (scored from
// the second position of the repeat to the second-to-last).
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "qkov/experiments/experiment.hpp"
#include "qkov/experiments/induction_sequences.hpp"
#include "qkov/experiments/seed_head_tensors.hpp"
#include "qkov/circuits/dimension_copy_head.hpp"
#include "qkov/circuits/induction_heads.hpp"
#include "qkov/numeric/softmax.hpp"
#include "qkov/report/line_plot.hpp"

namespace qkov::experiments {

namespace induction_detail {

using numeric::tensor2;
constexpr std::size_t D = seed_residual_width, d = seed_head_width, content = 1, previous = 1 + d;

inline induction_scores run_sequence(const tensor2<double>& embeddings, std::size_t length, std::optional<std::size_t> rope_d0, unsigned seed)
{
    const std::vector<std::size_t> tokens = repeated_random_sequence(embeddings.shape()[0], length, seed);

    tensor2<double> x = xt::zeros<double>({length, D});
    for (std::size_t t = 0; t < length; ++t) {
        x(t, 0) = 1.0;
        for (std::size_t c = 0; c < d; ++c) x(t, content + c) = embeddings(tokens[t], c);
    }
    // Layer 1: previous-token head, OV = block_copy_head, a dimension copy head (content -> previous-token subspace).
    auto weights1 = previous_token_scores(x, make_previous_token_weights<double>(100.0));
    numeric::softmax_in_place(weights1, numeric::masking::causal);  // scores -> pattern
    const auto ov = std::make_unique<ov_factors<double, D, d>>(block_copy_head<double, D, d>(content, previous));
    const tensor2<double> w_v1 = numeric::to_tensor(ov->w_v), w_o1 = numeric::to_tensor(ov->w_out);
    const tensor2<double> x1 = x + ov_head_output(weights1, x, w_v1, w_o1);

    // Layer 2: current content against previous-token content.
    const auto head2 = std::make_unique<qk_factors<double, d, D>>(
        previous_content_match_head<double, d, D>(20.0, rope_d0.value_or(0), content, previous));
    const std::optional<rope_layout> layout = rope_d0 ? std::optional(seed_layout) : std::nullopt;
    auto weights2 = numeric::rope_head_scores(x1, numeric::head_projection<double>{numeric::to_tensor(head2->w_q), numeric::to_tensor(head2->w_k)},
                                              layout, seed_angles<double>());
    numeric::softmax_in_place(weights2, numeric::masking::causal);  // scores -> pattern

    // Scored from half + 1: at t = half key 0 also carries token 0 in its previous-token subspace
    // (token 0 has no predecessor and head 1 puts it on itself), a tie with the true target 1.
    return score_induction_head(weights2, x1, content, embeddings, tokens, length / 2 + 1);
}

} // namespace induction_detail

inline experiment_result run_induction_head_experiment(const experiment_settings& settings)
{
    using namespace induction_detail;
    const bool full = settings.size == experiment_size::full;
    const std::size_t length = full ? 512 : 64;
    const std::vector<std::size_t> vocabularies = full ? std::vector<std::size_t>{4096, 50257} : std::vector<std::size_t>{1024};
    experiment_result result;
    result.id = "T7";
    result.title = "the K-composition induction head under RoPE (seed 002, Exercise 3), built by hand";
    result.command = "example_T7_induction_head --out report";

    text_table table({"V", "head 2 positions", "content dims", "attention on target (argmax)", "mean weight on target", "next token predicted"});
    report::line_plot plot({.title = "Induction under RoPE: head 2 reading pairs d0/2 .. 31 (L = " + std::to_string(length) + ")",
                            .x_label = "content dimensions head 2 matches on (d - d0)", .y_label = "next token predicted (fraction)"});
    const std::size_t d0s[] = {0, 32, 48, 56, 62};
    for (const std::size_t v : vocabularies) {
        const tensor2<double> embeddings = random_unit_embeddings(v, d);
        std::vector<double> dims, accuracy;
        auto add = [&](const std::string& position, std::size_t d0, const induction_scores& s) {
            table.add_row({std::to_string(v), position, std::to_string(d - d0), format("%.3f", s.attention_accuracy),
                           format("%.3f", s.target_mass), format("%.3f", s.prediction_accuracy)});
            auto& j = result.numbers["induction"][std::to_string(v)][position + ", d0 = " + std::to_string(d0)];
            j = {{"attention_accuracy", s.attention_accuracy}, {"target_mass", s.target_mass}, {"prediction_accuracy", s.prediction_accuracy}};
        };
        for (const std::size_t d0 : d0s) {
            const auto s = run_sequence(embeddings, length, d0, 11);
            add("RoPE", d0, s);
            dims.push_back(double(d - d0));
            accuracy.push_back(s.prediction_accuracy);
        }
        const auto nope = run_sequence(embeddings, length, std::nullopt, 11);
        add("no RoPE", 0, nope);
        result.check(nope.prediction_accuracy > 0.99, format("T7, V = %zu: without RoPE on head 2 the induction head predicts the next token (%.3f)", v, nope.prediction_accuracy));
        plot.add_series("RoPE, V = " + std::to_string(v), dims, accuracy, {.markers = true});
        plot.add_series("no RoPE, V = " + std::to_string(v), {dims.front(), dims.back()}, {nope.prediction_accuracy, nope.prediction_accuracy});
    }
    result.tables.push_back(table);
    result.add_figure(plot, settings.out_dir, "T7_induction_accuracy.png");
    result.paragraphs.push_back(format(
        "Repeated random sequences of length %zu (a prefix of distinct tokens from the whole vocabulary, repeated once). Head 1 is "
        "seed 001's previous-token head (alpha = 100) with a copy OV; head 2 matches current content against the previous token's "
        "content with beta = 20. Under RoPE, head 2's match is rotated by the distance to the earlier occurrence; reading only the "
        "low-frequency pairs (larger d0) trades content dimensions for rotation-invariance, the RoPE bottleneck of R11.", length));
    result.write_json(settings.out_dir, "T7_induction_head");
    return result;
}

} // namespace qkov::experiments
