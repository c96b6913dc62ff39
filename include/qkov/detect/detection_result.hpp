// What a detection reports (head_detection.hpp computes it): the sequences it ran, the attainable
// scores, the behaviour rules, every head's behaviour and the first sequence's tokens. A result
// type only, so what reads or writes it (the JSON, the figures, the comparison) needs none of the
// forward pass. A detection on text (the model's own, or a file's) is one of these too, with its
// input named and every sequence kept, since no seed draws a file's text again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "qkov/detect/behaviour_rules.hpp"
#include "qkov/detect/head_behaviour.hpp"
#include "qkov/forward/token_id.hpp"
#include "qkov/labels/vocabulary.hpp"
#include "qkov/scan/scan_json_keys.hpp"

namespace qkov::detect {

using forward::token_id;

struct detection_result {
    /// What the sequences are, in the scan's words (scan_json_keys::input_*): random tokens ([BOS] + r + r),
    /// own text, file PATH, given sequences.
    std::string input = scan::scan_json_keys::input_random_tokens;
    std::size_t layers = 0, heads = 0, length = 0, samples = 0, vocabulary = 0;  ///< length: |r| (0 on text)
    std::uint64_t seed = 0;
    token_id bos = 0;
    double behaviour_fraction = labels::majority;
    double attainable[3] = {0, 0, 0};  ///< per behaviour_names: what a head doing only that scores (on text, averaged over the sequences)
    std::vector<behaviour_rule> rules;     ///< behaviour_rules(length, behaviour_fraction)
    std::vector<head_behaviour> per_head;  ///< layer-major, every head of the model
    std::vector<token_id> first_sequence;  ///< sample 0's tokens, for what is drawn from one run
    std::vector<std::vector<token_id>> sequences;  ///< text: every sequence measured (random tokens: none kept, the seed draws them again)
    std::string copying_not_measured;      ///< why copying was not measured; empty when it was

    [[nodiscard]] double threshold(std::size_t k) const { return behaviour_fraction * attainable[k]; }

    /// The head at (layer, head), or nullptr outside the model (per_head is layer-major).
    [[nodiscard]] const head_behaviour* find(std::size_t layer, std::size_t head) const
    {
        return layer < layers && head < heads && layer * heads + head < per_head.size() ? &per_head[layer * heads + head] : nullptr;
    }
    /// The rule named `name`, or nullptr.
    [[nodiscard]] const behaviour_rule* rule(const std::string& name) const
    {
        for (const auto& r : rules)
            if (r.name == name) return &r;
        return nullptr;
    }
};

} // namespace qkov::detect
