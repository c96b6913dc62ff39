// The behaviours a head can show and the rule of each (docs/DETECT.md): the number it compares,
// its threshold and why the threshold is there, built from the sequence length alone. The
// detection (head_detection.hpp) applies them, and its document's reader builds them again, with
// nothing of the forward pass.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qkov/detect/head_behaviour.hpp"
#include "qkov/forward/head_scores.hpp"

namespace qkov::detect {

/// One behaviour a head can show: the number compared, its threshold and why the threshold is there.
/// A new detector is one row of behaviour_rules() plus its value.
struct behaviour_rule {
    std::string name, measure, reason;
    double threshold = 0;
    std::function<std::optional<double>(const head_behaviour&)> value;  ///< nullopt: not measured on that head

    [[nodiscard]] bool shown_by(const head_behaviour& h) const
    {
        const auto v = value(h);
        return v && *v >= threshold;
    }
};

/// The largest offset means' sum, the two of them: how much of the attention position alone explains.
inline double top_two_offsets(const head_behaviour& h)
{
    std::array<double, forward::largest_offset + 1> means{};
    for (std::size_t k = 0; k < means.size(); ++k) means[k] = h.by_offset[k].mean;
    std::partial_sort(means.begin(), means.begin() + 2, means.end(), std::greater<>());
    return means[0] + means[1];
}

/// The sink threshold of Gu et al. 2024 ("When attention sink emerges in language models"): a head
/// whose queries give BOS at least this much attention on average.
inline constexpr double sink_threshold = 0.3;

/// Every behaviour the detection can report, in the order tables list them. `length` is |r|,
/// `fraction` the share of an attainable score that counts as showing (one half: a majority).
inline std::vector<behaviour_rule> behaviour_rules(std::size_t length, double fraction)
{
    const double n = 2.0 * static_cast<double>(length) + 1, previous = (n - 1) / n, repeat = static_cast<double>(length) / n;
    const auto mean_of = [](score_statistics head_behaviour::* member) {
        return [member](const head_behaviour& h) -> std::optional<double> { return (h.*member).mean; };
    };
    const std::string majority = "a majority of the attention a head could put there";
    std::vector<behaviour_rule> rules{
        {"previous_token", "TransformerLens' previous-token score", majority + " ((n - 1) / n: every query but BOS has a previous token)",
         fraction * previous, mean_of(&head_behaviour::previous_token)},
        {"duplicate_token", "TransformerLens' duplicate-token score", majority + " (|r| / n: only the second copy has an earlier copy)", fraction * repeat,
         mean_of(&head_behaviour::duplicate_token)},
        {"induction", "TransformerLens' induction score", majority + " (|r| / n)", fraction * repeat, mean_of(&head_behaviour::induction)},
        {"shifted_induction", "the larger repeat score of shifts -1 and 2 (one before, two after the earlier copy)",
         majority + " (|r| / n); TransformerLens' induction score misses heads that read two after the earlier copy and copy by V-composition",
         fraction * repeat, [](const head_behaviour& h) -> std::optional<double> { return std::max(h.shift(-1).mean, h.shift(2).mean); }},
        {"sink", "mean attention to BOS over queries 1 .. |r| (the first copy: random text)", "the attention-sink threshold of Gu et al. 2024", sink_threshold,
         mean_of(&head_behaviour::bos)},
    };
    for (std::size_t k = 0; k <= forward::largest_offset; ++k) {
        if (k == 1) continue;  // offset 1 is previous_token
        rules.push_back({"offset_" + std::to_string(k), "mean A[i, i - " + std::to_string(k) + "] over queries i >= " + std::to_string(forward::largest_offset),
                         "a majority of every query's attention at one offset", fraction,
                         [k](const head_behaviour& h) -> std::optional<double> { return h.by_offset[k].mean; }});
    }
    rules.push_back({"positional", "the two largest means of attention by offset 0 .. " + std::to_string(forward::largest_offset) + ", summed",
                     "a majority of every query's attention at two fixed offsets", fraction,
                     [](const head_behaviour& h) -> std::optional<double> { return top_two_offsets(h); }});
    rules.push_back({"copy", "share of queries (most-attended key not BOS) whose most-attended token is the head's top-1 logit",
                     "a majority of the queries", fraction, [](const head_behaviour& h) -> std::optional<double> {
                         if (!h.copying || h.copying->queries == 0) return std::nullopt;  // a head resting on BOS reads no token
                         return h.copying->top1_share();
                     }});
    rules.push_back({"copy_suppression",
                     "share of queries (most-attended key not BOS) whose most-attended token is among the head's " +
                         std::to_string(forward::copy_bottom_ranks) + " lowest logits",
                     "a majority of the queries", fraction, [](const head_behaviour& h) -> std::optional<double> {
                         if (!h.copying || h.copying->queries == 0) return std::nullopt;
                         return h.copying->bottom_share();
                     }});
    return rules;
}

} // namespace qkov::detect
