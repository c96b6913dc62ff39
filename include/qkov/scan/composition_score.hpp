// What the scan reports of a pair of heads in different layers: their Q-, K- and V-composition
// scores and T3's singular values (computed by composition.hpp, which gives the definitions), and
// the strongest targets of a source head among them. A result type and a selection from it, so
// what reads or writes it (the JSON, the reports, the facts) needs none of the computation.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

#include "qkov/model/head_weights.hpp"

namespace qkov::scan {

using model::vector;

struct composition_score {
    std::size_t source_layer = 0, source_head = 0, target_layer = 0, target_head = 0;
    double q = 0, k = 0, v = 0;
    /// In a float32 scan, how far each score may be from the float64 scan's (composition.hpp); 0 in
    /// float64.
    double q_bound = 0, k_bound = 0, v_bound = 0;
    /// T3's spectrum, shared by the pairs that have the same one: a GQA group's query heads read
    /// one W_v, so their pairs with a source head hold one copy (Llama-3-8B: one per 4 pairs, 0.4 GB
    /// less over its 523,776 pairs).
    std::shared_ptr<const vector> t3_spectrum;
    /// The singular values of W_v(target) W_o(source), descending (empty when not computed).
    [[nodiscard]] const vector& t3_singular_values() const
    {
        static const vector none;
        return t3_spectrum ? *t3_spectrum : none;
    }
};

/// The `count` strongest targets of one source head under one score (q, k or v), strongest first.
inline std::vector<const composition_score*> strongest_targets(const std::vector<composition_score>& all, std::size_t layer, std::size_t head,
                                                               double composition_score::*score, std::size_t count)
{
    std::vector<const composition_score*> mine;
    for (const auto& c : all)
        if (c.source_layer == layer && c.source_head == head) mine.push_back(&c);
    const std::size_t n = std::min(count, mine.size());
    std::partial_sort(mine.begin(), mine.begin() + static_cast<std::ptrdiff_t>(n), mine.end(), [&](auto* a, auto* b) { return a->*score > b->*score; });
    mine.resize(n);
    return mine;
}

} // namespace qkov::scan
