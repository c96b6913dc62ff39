// The seeds' run-time setting: residual width D = 768, head width d and the RoPE layout and
// angles of circuits/rope_seed_setting.hpp; seed 001's previous-token head and seed 000's
// semantic head (both defined once in circuits/positional_heads.hpp) instantiated at these sizes
// as tensors, and the previous-token head run on a batch of L such tokens (R6). Shared by the experiments, `qkov reproduce` and the benchmarks against numpy.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <random>

#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/numeric/qk_tensors.hpp"
#include "qkov/numeric/rope_head.hpp"
#include "qkov/numeric/tabulated_angles.hpp"

namespace qkov::experiments {

inline constexpr std::size_t seed_residual_width = 768;  // D
inline constexpr std::size_t seed_head_width = seed_rope_setting.d;  // d
inline constexpr rope_layout seed_layout = seed_rope_setting.layout();

/// The seeds' angles (circuits/rope_seed_setting.hpp) in T.
template <class T>
numeric_angles<T, seed_head_width / 2> seed_angles()
{
    return standard_angles<T, seed_rope_setting>();
}

/// The seeds' angles at positions 0 .. n-1, evaluated once for all heads of a sweep.
inline numeric::tabulated_angles<numeric_angles<double, seed_head_width / 2>> seed_angle_table(std::size_t n)
{
    return {seed_angles<double>(), 0, n};
}

/// Seed 001's previous-token head with scale alpha: its W_q and W_k (d x D) as tensors.
template <class T>
numeric::qk_tensors<T> make_previous_token_weights(double alpha)
{
    // 2 x 64 x 768 scalars: built on the heap, not in a stack frame.
    const auto head = std::make_unique<qk_factors<T, seed_head_width, seed_residual_width>>(
        previous_token_head<seed_layout, seed_residual_width>(seed_angles<T>(), T(alpha)));
    return numeric::to_qk_tensors(head->w_q, head->w_k);
}

/// Seed 000's semantic head (circuits/positional_heads.hpp) reading the RoPE pairs l >= first_pair:
/// its W_Q and W_K (d x D) as tensors.
inline numeric::qk_tensors<double> semantic_head_tensors(std::size_t first_pair)
{
    // 2 x 64 x 768 doubles: built on the heap, not in a stack frame.
    const auto head = std::make_unique<qk_factors<double, seed_head_width, seed_residual_width>>(
        semantic_head<seed_layout, seed_residual_width, double>(first_pair));
    return numeric::to_qk_tensors(head->w_q, head->w_k);
}

/// L tokens of width D: coordinate 0 is the constant 1 the head reads (seed 001's x_{i1} = 1), the
/// others are standard normal (seeded). The head's scores do not depend on them.
template <class T>
numeric::tensor2<T> tokens_with_constant_coordinate(std::size_t length, unsigned seed = 1)
{
    std::mt19937 gen(seed);
    std::normal_distribution<double> normal;
    numeric::tensor2<T> tokens = numeric::tensor2<T>::from_shape({length, seed_residual_width});
    for (auto& x : tokens) x = T(normal(gen));
    for (std::size_t t = 0; t < length; ++t) tokens(t, 0) = T(1);
    return tokens;
}

/// Causal pre-softmax scores of the previous-token head (unscaled, as in the seed).
template <class T>
numeric::tensor2<T> previous_token_scores(const numeric::tensor2<T>& tokens, const numeric::qk_tensors<T>& head)
{
    return numeric::rope_head_scores(tokens, head.projection(), std::optional(seed_layout), seed_angles<T>(),
                                     numeric::score_scaling::none, numeric::masking::causal);
}

/// Its causal attention pattern (the softmax of previous_token_scores, fused).
template <class T>
numeric::tensor2<T> previous_token_pattern(const numeric::tensor2<T>& tokens, const numeric::qk_tensors<T>& head)
{
    return numeric::rope_head_pattern(tokens, head.projection(), std::optional(seed_layout), seed_angles<T>(),
                                      numeric::score_scaling::none, numeric::masking::causal);
}

} // namespace qkov::experiments
