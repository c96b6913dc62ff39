// What the pattern detectors (head_detectors.hpp, which defines every score) give a head: the
// scores of one sequence, or of any statistic over sequences, field by field (score_set), the
// copying counts, and the offsets and shifts they are measured at. Result types only, so what
// reads or writes them (the detection's JSON, figures and comparison) needs none of the forward
// pass.
#pragma once

#include <array>
#include <cstddef>
#include <iterator>

#include "qkov/labels/vocabulary.hpp"

namespace qkov::forward {

/// The largest key offset whose attention is measured (offsets 0 .. largest_offset): the
/// vocabulary's, the scan's window.
inline constexpr std::size_t largest_offset = labels::largest_offset;

/// The shifts s of the repeat-attention template, in the order head_scores::by_shift holds them:
/// one before the earlier copy to largest_offset after it, the shifts a composed circuit can give a
/// head (scan/circuit_search.hpp: a key reading up to largest_offset tokens back).
inline constexpr auto repeat_shifts = [] {
    std::array<int, largest_offset + 2> s{};
    for (std::size_t m = 0; m < s.size(); ++m) s[m] = static_cast<int>(m) - 1;
    return s;
}();
inline constexpr std::size_t repeat_shift_count = std::size(repeat_shifts);

/// The index of shift s in repeat_shifts (s must be one of them).
constexpr std::size_t shift_index(int s) { return static_cast<std::size_t>(s - repeat_shifts[0]); }

/// The lowest ranks that count as suppressing a token (Wang et al.'s copy suppression reads the bottom 10).
inline constexpr std::size_t copy_bottom_ranks = 10;

/// Queries whose most-attended token was ranked first, or among the last copy_bottom_ranks, by the head's logits.
struct copy_counts {
    std::size_t queries = 0, top1 = 0, bottom = 0;

    [[nodiscard]] double top1_share() const { return queries == 0 ? 0.0 : double(top1) / double(queries); }
    [[nodiscard]] double bottom_share() const { return queries == 0 ? 0.0 : double(bottom) / double(queries); }
};

/// Every score the pattern detectors give a head, as X: a double on one sequence
/// (head_scores), statistics over samples (detect::head_behaviour).
template <class X>
struct score_set {
    X previous_token{}, duplicate_token{}, induction{};  ///< TransformerLens' 'mul' scores
    X bos{};                                             ///< mean attention to position 0, queries 1 <= i < the first repeat
    std::array<X, largest_offset + 1> by_offset{};       ///< mean A[i, i - k], queries i >= largest_offset
    std::array<X, repeat_shift_count> by_shift{};        ///< 'mul' score of P_s, s = repeat_shifts
};

/// Calls f(x, y) for every score x of `a` and the same score y of `b`, in one fixed order: the one
/// place two score sets are matched field by field.
template <class A, class B, class F>
void for_each_score(A& a, B& b, F f)
{
    f(a.previous_token, b.previous_token), f(a.duplicate_token, b.duplicate_token), f(a.induction, b.induction), f(a.bos, b.bos);
    for (std::size_t k = 0; k < a.by_offset.size(); ++k) f(a.by_offset[k], b.by_offset[k]);
    for (std::size_t m = 0; m < a.by_shift.size(); ++m) f(a.by_shift[m], b.by_shift[m]);
}

/// The scores of one head on one sequence.
struct head_scores : score_set<double> {};

} // namespace qkov::forward
