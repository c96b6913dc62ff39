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
//
// The same pass gives what the TL templates do not separate:
//   repeat attention by shift s  P_s[i, e + s] = 1 for every earlier position e of t_i, 0 <= e + s <= i,
//                                the same 'mul' measure (s = 0 is duplicate token, s = 1 induction;
//                                s = 2 is a head that reads two after the earlier copy)
//   attention to BOS             mean A[i, 0] over queries 1 <= i < the first repeated token (row 0 has
//                                nothing else to attend to; from the first repeat on, an induction head
//                                finds its target and leaves BOS, so its rest on BOS is measured on the
//                                part of the text that is random: the first copy of r); on text, which
//                                repeats tokens from its first words, over the first half, queries
//                                1 <= i <= (n - 1) / 2 (bos_queries::first_half): the same positions as
//                                on [BOS] + r + r of the same length, since a query's rest on BOS falls
//                                as it has more keys to spread over
//   attention by offset k        mean A[i, i - k] over queries i >= largest_offset, k = 0 .. largest_offset,
//                                so every query has a key at every offset and the means are comparable
// Whether a head copies, from its values and its map into logits, is copy_tally.hpp's.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "qkov/forward/forward_pass.hpp"
#include "qkov/forward/head_scores.hpp"

namespace qkov::forward {

/// The queries whose attention to BOS is averaged.
enum class bos_queries {
    before_first_repeat,  ///< 1 <= i < the first repeated token: the random part of [BOS] + r + r
    first_half            ///< 1 <= i <= (n - 1) / 2: text, whose first repeat comes a few words in (on [BOS] + r + r the same queries)
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
head_scores scores_of(const tensor2<T>& pattern, const std::vector<std::pair<std::size_t, std::size_t>>& copies,
                      bos_queries bos = bos_queries::before_first_repeat)
{
    const std::size_t n = pattern.shape()[0];
    const T* a = pattern.data();
    head_scores s;
    double total = 0;
    for (std::size_t k = 0; k < n * n; ++k) total += double(a[k]);
    if (total == 0) return s;
    std::size_t bos_end = (n - 1) / 2 + 1;  // the queries 1 .. bos_end - 1 whose attention to BOS is averaged
    if (bos == bos_queries::before_first_repeat) {
        bos_end = n;
        for (const auto& copy : copies) bos_end = std::min(bos_end, copy.first);
    }
    for (std::size_t i = 1; i < n; ++i) s.previous_token += double(a[i * n + i - 1]);
    for (std::size_t i = 1; i < bos_end; ++i) s.bos += double(a[i * n]);
    s.previous_token /= total;
    if (bos_end > 1) s.bos /= double(bos_end - 1);
    for (std::size_t i = largest_offset; i < n; ++i)
        for (std::size_t k = 0; k <= largest_offset; ++k) s.by_offset[k] += double(a[i * n + i - k]);
    if (n > largest_offset)
        for (auto& v : s.by_offset) v /= double(n - largest_offset);
    for (std::size_t m = 0; m < repeat_shift_count; ++m) {
        for (const auto& [i, e] : copies) {
            const auto j = static_cast<std::ptrdiff_t>(e) + repeat_shifts[m];
            if (j >= 0 && static_cast<std::size_t>(j) <= i) s.by_shift[m] += double(a[i * n + static_cast<std::size_t>(j)]);
        }
        s.by_shift[m] /= total;
    }
    s.duplicate_token = s.by_shift[shift_index(0)], s.induction = s.by_shift[shift_index(1)];
    return s;
}

} // namespace detail

/// The scores of one pattern (n x n, row = query) over the tokens it was computed on.
template <class T>
head_scores detect(const tensor2<T>& pattern, std::span<const token_id> tokens, bos_queries bos = bos_queries::before_first_repeat)
{
    detail::require_square(pattern.shape()[0], pattern.shape()[1], tokens.size());
    return detail::scores_of(pattern, detail::earlier_copies(tokens), bos);
}

/// A visitor for decoder::logits that scores every (layer, head) on the sequence it runs:
/// scores[layer][head] after the pass. The sequence's earlier copies are found here, once.
template <class T>
pattern_visitor<T> score_heads(std::vector<std::vector<head_scores>>& scores, std::span<const token_id> tokens, std::size_t layers, std::size_t heads,
                               bos_queries bos = bos_queries::before_first_repeat)
{
    scores.assign(layers, std::vector<head_scores>(heads));
    return [&scores, n = tokens.size(), copies = detail::earlier_copies(tokens), bos](std::size_t l, std::size_t h, const tensor2<T>& p) {
        detail::require_square(p.shape()[0], p.shape()[1], n);
        scores.at(l).at(h) = detail::scores_of(p, copies, bos);
    };
}

} // namespace qkov::forward
