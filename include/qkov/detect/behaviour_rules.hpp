// The behaviours a head can show and the rule of each (docs/DETECT.md): the number it compares,
// its threshold and why the threshold is there, built from the sequence length alone. The
// detection (head_detection.hpp) applies them, and its document's reader builds them again, with
// nothing of the forward pass.
//
// A measured mean is an estimate from a few random sequences, so a rule decides three ways: the
// head shows the behaviour when the 95 % interval of the mean (Student's t over the samples) lies
// at or above the threshold, lacks it when the interval lies below, and is undecided when the
// interval holds the threshold: more sequences would be needed to say. A value with no spread over
// samples (copying's shares, pooled over the queries of every sample; any value of a one-sample
// run) is decided by the value alone.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qkov/detect/head_behaviour.hpp"
#include "qkov/forward/head_scores.hpp"
#include "qkov/labels/vocabulary.hpp"

namespace qkov::detect {

/// The 97.5 % quantile of Student's t with `dof` degrees of freedom: a mean over n samples lies within
/// t(n - 1) s / sqrt(n) of its expectation with 95 % confidence. Beyond 30 degrees the value at 30
/// is used, which is larger than the true quantile (it falls towards 1.96), so the interval errs wide.
inline double student_t_975(std::size_t dof)
{
    static constexpr double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                                       2.120,  2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    constexpr std::size_t known = sizeof(table) / sizeof(table[0]);
    if (dof == 0) return INFINITY;
    return table[std::min(dof, known) - 1];
}

enum class behaviour_decision { shown, absent, undecided };

/// One behaviour a head can show: the number compared, its threshold and why the threshold is there.
/// A new detector is one row of behaviour_rules() plus its value (and its spread over the samples,
/// where the value is a mean of per-sample values).
struct behaviour_rule {
    std::string name, measure, reason;
    double threshold = 0;
    std::function<std::optional<double>(const head_behaviour&)> value;  ///< nullopt: not measured on that head
    std::function<std::optional<double>(const head_behaviour&)> spread = [](const head_behaviour&) { return std::optional<double>(); };
    ///< the sample standard deviation behind `value` (an upper bound of it for a sum); nullopt: none
    bool decidable = true;  ///< false: the input gives no head a way to show it (a text without a target at the shift): undecided

    /// The half-width of the 95 % interval of the head's value over `samples` sequences (0 when the
    /// value has no spread or one sample was run: decided by the value alone).
    [[nodiscard]] double interval_half_width(const head_behaviour& h, std::size_t samples) const
    {
        const auto s = spread(h);
        if (!s || samples < 2) return 0.0;
        return student_t_975(samples - 1) * *s / std::sqrt(static_cast<double>(samples));
    }
    [[nodiscard]] behaviour_decision decide(const head_behaviour& h, std::size_t samples) const
    {
        if (!decidable) return behaviour_decision::undecided;
        const auto v = value(h);
        if (!v) return behaviour_decision::absent;
        const double half = interval_half_width(h, samples);
        if (*v - half >= threshold) return behaviour_decision::shown;
        if (*v + half < threshold) return behaviour_decision::absent;
        return behaviour_decision::undecided;
    }
};

/// The largest offset means' sum, the two of them: how much of the attention position alone
/// explains; with `of` = &score_statistics::spread, the sum of those two offsets' spreads.
inline double top_two_offsets(const head_behaviour& h, double score_statistics::* of = &score_statistics::mean)
{
    std::array<std::size_t, forward::largest_offset + 1> order{};
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::partial_sort(order.begin(), order.begin() + 2, order.end(), [&h](std::size_t a, std::size_t b) { return h.by_offset[a].mean > h.by_offset[b].mean; });
    return h.by_offset[order[0]].*of + h.by_offset[order[1]].*of;
}


/// Every behaviour the detection can report, in the order tables list them. `length` is |r|,
/// `fraction` the share of an attainable score that counts as showing (one half: a majority).
inline std::vector<behaviour_rule> behaviour_rules(std::size_t length, double fraction)
{
    const double n = 2.0 * static_cast<double>(length) + 1, previous = (n - 1) / n, repeat = static_cast<double>(length) / n;
    const auto mean_of = [](score_statistics head_behaviour::* member) {
        return [member](const head_behaviour& h) -> std::optional<double> { return (h.*member).mean; };
    };
    const auto spread_of = [](score_statistics head_behaviour::* member) {
        return [member](const head_behaviour& h) -> std::optional<double> { return (h.*member).spread; };
    };
    const std::string majority = "a majority of the attention a head could put there";
    std::vector<behaviour_rule> rules{
        {"previous_token", "TransformerLens' previous-token score", majority + " ((n - 1) / n: every query but BOS has a previous token)",
         fraction * previous, mean_of(&head_behaviour::previous_token), spread_of(&head_behaviour::previous_token)},
        {"duplicate_token", "TransformerLens' duplicate-token score", majority + " (|r| / n: only the second copy has an earlier copy)", fraction * repeat,
         mean_of(&head_behaviour::duplicate_token), spread_of(&head_behaviour::duplicate_token)},
        {"induction", "TransformerLens' induction score", majority + " (|r| / n)", fraction * repeat, mean_of(&head_behaviour::induction),
         spread_of(&head_behaviour::induction)},
        {"shifted_induction", "the larger repeat score of shifts -1 and 2 (one before, two after the earlier copy)",
         majority + " (|r| / n); TransformerLens' induction score misses heads that read two after the earlier copy and copy by V-composition",
         fraction * repeat, [](const head_behaviour& h) -> std::optional<double> { return std::max(h.shift(-1).mean, h.shift(2).mean); },
         [](const head_behaviour& h) -> std::optional<double> { return (h.shift(-1).mean >= h.shift(2).mean ? h.shift(-1) : h.shift(2)).spread; }},
        {"sink", "mean attention to BOS over queries 1 .. |r| (the first copy: random text)", "the attention-sink threshold of Gu et al. 2024", labels::sink_threshold,
         mean_of(&head_behaviour::bos), spread_of(&head_behaviour::bos)},
    };
    for (int s = 2; s <= static_cast<int>(forward::largest_offset); ++s)
        rules.push_back({labels::repeat_shift_name(static_cast<std::size_t>(s)), "the repeat score at shift " + std::to_string(s) + " (attention " + std::to_string(s) + " after the earlier copy)",
                         majority + " (|r| / n)", fraction * repeat, [s](const head_behaviour& h) -> std::optional<double> { return h.shift(s).mean; },
                         [s](const head_behaviour& h) -> std::optional<double> { return h.shift(s).spread; }});
    for (std::size_t k = 0; k <= forward::largest_offset; ++k) {
        if (k == 1) continue;  // offset 1 is previous_token
        rules.push_back({labels::offset_name(k), "mean A[i, i - " + std::to_string(k) + "] over queries i >= " + std::to_string(forward::largest_offset),
                         "a majority of every query's attention at one offset", fraction,
                         [k](const head_behaviour& h) -> std::optional<double> { return h.by_offset[k].mean; },
                         [k](const head_behaviour& h) -> std::optional<double> { return h.by_offset[k].spread; }});
    }
    rules.push_back({"positional", "the two largest means of attention by offset 0 .. " + std::to_string(forward::largest_offset) + ", summed",
                     "a majority of every query's attention at two fixed offsets", fraction,
                     [](const head_behaviour& h) -> std::optional<double> { return top_two_offsets(h); },
                     // the spread of a sum is at most the sum of the spreads
                     [](const head_behaviour& h) -> std::optional<double> { return top_two_offsets(h, &score_statistics::spread); }});
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
