// Head behaviour from attention patterns: TransformerLens' previous-token, duplicate-token and
// induction detection patterns with its "mul" measure, computed per (layer, head) as the patterns
// stream past (forward_pass.hpp's visitor), so no pattern is kept.
//
// For a token sequence t and a head's causal pattern A (row = query), a detection pattern P is a
// 0/1 matrix and the "mul" score is sum(A .* P) / sum(A). Every row of A sums to 1, so the score is
// the attention mass on the detected keys averaged over all n query rows (rows with nothing to
// detect count as 0, as in TransformerLens):
//   previous token   P[i, i - 1] = 1                               (i >= 1)
//   duplicate token  P[i, j] = 1 when t_j = t_i, j < i
//   induction        P[i, j + 1] = 1 when t_j = t_i, j < i         (the token after an earlier copy)
// On [BOS] + r + r with r of distinct random tokens, query i in the second copy has one duplicate
// at i - |r| and one induction target at i - |r| + 1, so a perfect head scores |r| / (2 |r| + 1).
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/forward/forward_pass.hpp"

namespace qkov::forward {

/// The three scores of one head on one sequence.
struct head_scores {
    double previous_token = 0, duplicate_token = 0, induction = 0;
};

/// The scores of one pattern (n x n, row = query) over the tokens it was computed on.
template <class T>
head_scores detect(const tensor2<T>& pattern, std::span<const token_id> tokens)
{
    const std::size_t n = tokens.size();
    if (pattern.shape()[0] != n || pattern.shape()[1] != n)
        throw std::invalid_argument("qkov: a detection needs an n x n pattern for n = " + std::to_string(n) + " tokens");
    double total = 0, previous = 0, duplicate = 0, induction = 0;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) total += double(pattern(i, j));
        if (i >= 1) previous += double(pattern(i, i - 1));
        for (std::size_t j = 0; j < i; ++j)
            if (tokens[j] == tokens[i]) duplicate += double(pattern(i, j)), induction += double(pattern(i, j + 1));
    }
    if (total == 0) return {};
    return {previous / total, duplicate / total, induction / total};
}

/// A visitor for decoder::logits that scores every (layer, head) on the sequence it runs:
/// scores[layer][head] after the pass.
template <class T>
pattern_visitor<T> score_heads(std::vector<std::vector<head_scores>>& scores, std::span<const token_id> tokens, std::size_t layers, std::size_t heads)
{
    scores.assign(layers, std::vector<head_scores>(heads));
    return [&scores, tokens](std::size_t l, std::size_t h, const tensor2<T>& p) { scores.at(l).at(h) = detect(p, tokens); };
}

} // namespace qkov::forward
