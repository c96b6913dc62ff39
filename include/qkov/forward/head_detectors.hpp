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
#include <unordered_map>
#include <utility>
#include <vector>

#include "qkov/forward/forward_pass.hpp"

namespace qkov::forward {

/// The three scores of one head on one sequence.
struct head_scores {
    double previous_token = 0, duplicate_token = 0, induction = 0;
};

namespace detail {
/// Every (i, j) with j < i and t_j = t_i, in order of i: what the duplicate and induction
/// patterns select. The same for every head of a run, so score_heads finds them once, not per head.
inline std::vector<std::pair<std::size_t, std::size_t>> earlier_copies(std::span<const token_id> tokens)
{
    std::unordered_map<token_id, std::vector<std::size_t>> seen;
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        auto& earlier = seen[tokens[i]];
        for (const std::size_t j : earlier) pairs.emplace_back(i, j);
        earlier.push_back(i);
    }
    return pairs;
}

inline void require_square(std::size_t rows, std::size_t columns, std::size_t n)
{
    if (rows != n || columns != n) throw std::invalid_argument("qkov: a detection needs an n x n pattern for n = " + std::to_string(n) + " tokens");
}

/// The scores of one n x n pattern given the sequence's earlier copies.
template <class T>
head_scores scores_of(const tensor2<T>& pattern, const std::vector<std::pair<std::size_t, std::size_t>>& copies)
{
    const std::size_t n = pattern.shape()[0];
    const T* a = pattern.data();
    double total = 0, previous = 0, duplicate = 0, induction = 0;
    for (std::size_t k = 0; k < n * n; ++k) total += double(a[k]);
    for (std::size_t i = 1; i < n; ++i) previous += double(a[i * n + i - 1]);
    for (const auto& [i, j] : copies) duplicate += double(a[i * n + j]), induction += double(a[i * n + j + 1]);
    if (total == 0) return {};
    return {previous / total, duplicate / total, induction / total};
}
} // namespace detail

/// The scores of one pattern (n x n, row = query) over the tokens it was computed on.
template <class T>
head_scores detect(const tensor2<T>& pattern, std::span<const token_id> tokens)
{
    detail::require_square(pattern.shape()[0], pattern.shape()[1], tokens.size());
    return detail::scores_of(pattern, detail::earlier_copies(tokens));
}

/// A visitor for decoder::logits that scores every (layer, head) on the sequence it runs:
/// scores[layer][head] after the pass. The sequence's earlier copies are found here, once.
template <class T>
pattern_visitor<T> score_heads(std::vector<std::vector<head_scores>>& scores, std::span<const token_id> tokens, std::size_t layers, std::size_t heads)
{
    scores.assign(layers, std::vector<head_scores>(heads));
    return [&scores, n = tokens.size(), copies = detail::earlier_copies(tokens)](std::size_t l, std::size_t h, const tensor2<T>& p) {
        detail::require_square(p.shape()[0], p.shape()[1], n);
        scores.at(l).at(h) = detail::scores_of(p, copies);
    };
}

} // namespace qkov::forward
