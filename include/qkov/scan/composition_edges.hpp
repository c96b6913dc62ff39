// The strongest edges of the composition graph, for the scan's report and figure.
//
// A pair of heads composes in up to three ways (Q, K, V: composition.hpp); a reader first asks
// "which pairs are strongly connected, and how", so an edge is a pair with the largest of its
// three scores and the kind that gives it. The JSON keeps every score of every pair; this is a
// selection to read at a glance.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <tuple>
#include <vector>

#include "qkov/model/head_name.hpp"
#include "qkov/scan/composition_score.hpp"

namespace qkov::scan {

using model::head_name;

struct composition_edge {
    const composition_score* pair = nullptr;
    double score = 0;  ///< max(q, k, v)
    char kind = 'q';   ///< which of them: 'q', 'k' or 'v' (the first in that order on a tie)
};

/// The edge of one pair: its largest score and which kind gives it.
inline composition_edge strongest_kind(const composition_score& c)
{
    composition_edge e{&c, c.q, 'q'};
    if (c.k > e.score) e.score = c.k, e.kind = 'k';
    if (c.v > e.score) e.score = c.v, e.kind = 'v';
    return e;
}

/// The `count` pairs with the largest max(q, k, v), strongest first; ties keep the scan's order
/// (source layer, source head, target layer, target head), so the selection is reproducible.
inline std::vector<composition_edge> strongest_edges(const std::vector<composition_score>& all, std::size_t count)
{
    std::vector<composition_edge> edges;
    edges.reserve(all.size());
    for (const auto& c : all) edges.push_back(strongest_kind(c));
    const auto order = [](const composition_score& c) { return std::tuple(c.source_layer, c.source_head, c.target_layer, c.target_head); };
    const std::size_t n = std::min(count, edges.size());
    std::partial_sort(edges.begin(), edges.begin() + static_cast<std::ptrdiff_t>(n), edges.end(), [&](const auto& a, const auto& b) {
        return a.score != b.score ? a.score > b.score : order(*a.pair) < order(*b.pair);
    });
    edges.resize(n);
    return edges;
}

} // namespace qkov::scan
