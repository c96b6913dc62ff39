// What a detected behaviour looks like: for each behaviour some head shows (every row of
// behaviour_rules()), the pattern of the head that shows it most strongly (its measured value
// highest), on the detection's first sequence (the same seed gives the same
// tokens, kept in the result). One more forward pass keeps only those few n x n patterns.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "qkov/detect/example_pattern.hpp"
#include "qkov/detect/head_detection.hpp"

namespace qkov::detect {

/// The strongest head of each behaviour any head shows, in the order of the result's rules.
template <pattern_source Pass>
std::vector<example_pattern> example_patterns(const Pass& pass, const detection_result& r)
{
    using T = typename Pass::scalar;
    std::vector<example_pattern> out;
    for (const auto& rule : r.rules) {
        const head_behaviour* best = nullptr;
        double best_value = 0;
        for (const auto& h : r.per_head)
            if (h.shows(rule.name) && (best == nullptr || *rule.value(h) > best_value)) best = &h, best_value = *rule.value(h);
        if (best) out.push_back({rule.name, best->layer, best->head, best_value, {}, {}});
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
