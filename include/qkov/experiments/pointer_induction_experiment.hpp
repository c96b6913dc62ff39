// T6 (seed 002, Exercise 2): the pointer-arithmetic induction head on a sinusoidal position
// embedding, built from the library's constructions (circuits/induction_heads.hpp: content_match_head,
// block_copy_head, position_shift_head; circuits/positional_heads.hpp: sinusoidal_position)
// and run on repeated random token sequences. No RoPE: positions live in the residual stream.
//
// Residual stream (D = 768): coordinate 0 the constant 1; 1 .. 64 the token's content e_t (a random
// unit vector per vocabulary entry); 65 .. 128 the position embedding p_n = sinusoidal_position(n)
// (32 pairs, standard angles base 10000, lambda_l = 1); 129 .. 192 empty (the seed's v_0, v_1, ...).
//   head 1, Exercise 2(d)/(e): W_Q = (beta_c C ; -beta_p P), W_K = (C ; P) with C, P the content and
//           position readers, so it matches content but is pushed away from its own position; its OV
//           (block_copy_head, a dimension copy head) writes the attended token's position embedding into 129 .. 192. At a repeated
//           token this is the position of its earlier occurrence.
//   head 2, Exercise 2(f): W_Q = beta R_{+1} V (V reads 129 .. 192; R_{+1} the rotation by +1, the
//           opposite of 2(c)'s previous-token rotation), W_K = P: it attends to the token after the
//           earlier occurrence. Its OV copies that token's content; the prediction is the vocabulary
//           entry with the largest dot product.
// Scores are raw (no 1/sqrt(d)). Head 2 scores beta (32 - g(k)) at distance k from the pointer
// (g as in R6, g(k) >= 1.08 for k != 0 up to 2048), so beta sets how sharp the pointer is.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <xtensor/xbuilder.hpp>

#include "qkov/experiments/experiment.hpp"
#include "qkov/experiments/induction_sequences.hpp"
#include "qkov/experiments/seed_head_tensors.hpp"
#include "qkov/circuits/dimension_copy_head.hpp"
#include "qkov/circuits/induction_heads.hpp"
#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/numeric/softmax.hpp"
#include "qkov/report/line_plot.hpp"

namespace qkov::experiments {

namespace pointer_detail {

using numeric::tensor2;
constexpr std::size_t D = seed_residual_width, d = seed_head_width, content = 1, position = 1 + d, pointer = 1 + 2 * d;

struct head_strengths {
    double content;   ///< beta_c: head 1's content match
    double position;  ///< beta_p: head 1's push away from its own position
    double pointer;   ///< beta: head 2's positional match
};

inline induction_scores run_sequence(const tensor2<double>& embeddings, std::size_t length, const head_strengths& beta, unsigned seed)
{
    const std::vector<std::size_t> tokens = repeated_random_sequence(embeddings.shape()[0], length, seed);
    const auto angles = seed_angles<double>();
    std::array<double, d / 2> lambda;
    lambda.fill(1.0);

    tensor2<double> x = xt::zeros<double>({length, D});
    for (std::size_t t = 0; t < length; ++t) {
        x(t, 0) = 1.0;
        for (std::size_t c = 0; c < d; ++c) x(t, content + c) = embeddings(tokens[t], c);
        const auto p = sinusoidal_position<seed_layout>(angles, lambda, static_cast<std::int64_t>(t));
        for (std::size_t c = 0; c < d; ++c) x(t, position + c) = p(c, 0);
    }

    // Head 1 (2(d), 2(e)): similar content, not itself; writes the attended position to the pointer block.
    // 2 x 128 x 768 scalars and the OV factors: built on the heap, not in a stack frame.
    const auto head1 = std::make_unique<qk_factors<double, 2 * d, D>>(
        content_match_head<double, d, D>(beta.content, beta.position, content, position));
    auto weights1 = numeric::rope_head_scores(x, numeric::head_projection<double>{numeric::to_tensor(head1->w_q), numeric::to_tensor(head1->w_k)},
                                              std::nullopt, angles);
    numeric::softmax_in_place(weights1, numeric::masking::causal);  // scores -> pattern
    const auto ov = std::make_unique<ov_factors<double, D, d>>(block_copy_head<double, D, d>(position, pointer));
    const tensor2<double> x1 = x + ov_head_output(weights1, x, numeric::to_tensor(ov->w_v), numeric::to_tensor(ov->w_out));

    // Head 2 (2(f)): the stored position rotated by +1 against every key's own position.
    const auto head2 = std::make_unique<qk_factors<double, d, D>>(
        position_shift_head<seed_layout, D>(angles, 1, beta.pointer, pointer, position));
    auto weights2 = numeric::rope_head_scores(x1, numeric::head_projection<double>{numeric::to_tensor(head2->w_q), numeric::to_tensor(head2->w_k)},
                                              std::nullopt, angles);
    numeric::softmax_in_place(weights2, numeric::masking::causal);  // scores -> pattern
    return score_induction_head(weights2, x1, content, embeddings, tokens, length / 2);
}

} // namespace pointer_detail

inline experiment_result run_pointer_induction_experiment(const experiment_settings& settings)
{
    using namespace pointer_detail;
    const bool full = settings.size == experiment_size::full;
    const std::vector<std::size_t> lengths = full ? std::vector<std::size_t>{64, 256, 512, 1024} : std::vector<std::size_t>{64};
    const std::vector<std::size_t> vocabularies = full ? std::vector<std::size_t>{4096, 50257} : std::vector<std::size_t>{1024};
    const double pointer_strengths[] = {0.1, 0.3, 1.0, 3.0, 10.0, 30.0};
    const head_strengths base{.content = 400.0, .position = 8.0, .pointer = 30.0};
    experiment_result result;
    result.id = "T6";
    result.title = "the pointer-arithmetic induction head on a sinusoidal position embedding (seed 002, Exercise 2), built by hand";
    result.command = "example_T6_pointer_induction_head --out report";

    text_table table({"V", "L", "beta (head 2)", "attention on target (argmax)", "mean weight on target", "next token predicted"});
    report::line_plot plot({.title = "Pointer-arithmetic induction head (V = " + std::to_string(vocabularies.back()) + "): weight on the target",
                            .x_label = "beta (head 2's positional match)", .y_label = "mean attention weight on the target", .x_scale = report::scale_kind::log10});
    double worst_at_base = 1.0;
    for (const std::size_t v : vocabularies) {
        const tensor2<double> embeddings = random_unit_embeddings(v, d);
        for (const std::size_t length : lengths) {
            std::vector<double> strengths, target_mass;
            for (const double b : pointer_strengths) {
                head_strengths beta = base;
                beta.pointer = b;
                const auto s = run_sequence(embeddings, length, beta, 11);
                table.add_row({std::to_string(v), std::to_string(length), format("%g", b), format("%.3f", s.attention_accuracy),
                               format("%.3f", s.target_mass), format("%.3f", s.prediction_accuracy)});
                result.numbers["induction"][std::to_string(v)][std::to_string(length)][format("%g", b)] = {
                    {"attention_accuracy", s.attention_accuracy}, {"target_mass", s.target_mass}, {"prediction_accuracy", s.prediction_accuracy}};
                strengths.push_back(b);
                target_mass.push_back(s.target_mass);
                if (b == base.pointer) worst_at_base = std::min(worst_at_base, s.prediction_accuracy);
            }
            // The weight on the target does not depend on V (head 2 reads positions only): one line per L, at the largest V.
            if (v == vocabularies.back()) plot.add_series("L = " + std::to_string(length), strengths, target_mass, {.markers = true});
        }
    }
    result.numbers["head_1"] = {{"beta_content", base.content}, {"beta_position", base.position}};
    result.check(worst_at_base > 0.99, format("T6: at beta = %g the pointer-arithmetic head predicts the next token on more than 99%% "
                                              "of the repeated positions for every V and L (worst %.3f)",
                                              base.pointer, worst_at_base));
    result.tables.push_back(table);
    result.add_figure(plot, settings.out_dir, "T6_pointer_induction_accuracy.png");
    result.paragraphs.push_back(format(
        "Repeated random sequences (a prefix of distinct tokens from the whole vocabulary, repeated once), scored on every position "
        "of the repeat but the last. Head 1 matches content (beta_c = %g) and pushes away from its own position (beta_p = %g), "
        "then copies the attended token's position embedding into a free subspace; head 2 rotates that stored position by +1 "
        "(rope_rotation, the opposite of Exercise 2(c)'s previous-token rotation) and matches it against every key's position "
        "with strength beta. No RoPE: the positions are in the residual stream, so head 2's score depends only on how far a key "
        "is from the pointer, and the head works at any sequence length once beta separates the pointer from its neighbours.",
        base.content, base.position));
    result.write_json(settings.out_dir, "T6_pointer_induction_head");
    return result;
}

} // namespace qkov::experiments
