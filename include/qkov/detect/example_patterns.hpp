// What a detected behaviour looks like: for each behaviour some head shows, the pattern of the head
// that shows it most strongly, on the detection's first sequence (the same seed gives the same
// tokens, kept in the result). One more forward pass keeps only those few n x n patterns.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "qkov/detect/head_detection.hpp"

namespace qkov::detect {

struct example_pattern {
    std::string behaviour;
    std::size_t layer = 0, head = 0;
    double mean_score = 0;
    std::vector<token_id> tokens;
    std::vector<double> pattern;  ///< n x n, row = query, row-major
};

/// The strongest head of each behaviour any head shows, in behaviour_names' order.
template <pattern_source Pass>
std::vector<example_pattern> example_patterns(const Pass& pass, const detection_result& r)
{
    using T = typename Pass::scalar;
    std::vector<example_pattern> out;
    for (std::size_t k = 0; k < 3; ++k) {
        const head_behaviour* best = nullptr;
        for (const auto& h : r.per_head)
            if (h.shows(behaviour_names[k]) && (best == nullptr || h.score(k).mean > best->score(k).mean)) best = &h;
        if (best) out.push_back({behaviour_names[k], best->layer, best->head, best->score(k).mean, {}, {}});
    }
    if (out.empty()) return out;
    const auto& tokens = r.first_sequence;
    std::map<std::pair<std::size_t, std::size_t>, std::vector<double>> kept;
    for (const auto& e : out) kept[{e.layer, e.head}];
    (void)pass.residual_stream(tokens, [&kept](std::size_t l, std::size_t h, const forward::tensor2<T>& p) {
        if (const auto it = kept.find({l, h}); it != kept.end()) it->second.assign(p.begin(), p.end());
    });
    for (auto& e : out) e.tokens = tokens, e.pattern = kept.at({e.layer, e.head});
    return out;
}

} // namespace qkov::detect
