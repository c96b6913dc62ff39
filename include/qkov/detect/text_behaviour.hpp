// The behaviour rules on text (the model's own, or a file's), from the rules on random tokens
// (behaviour_rules.hpp): the same behaviours, measures and fraction, with each template's attainable
// score taken from the text itself.
//
// On [BOS] + r + r a head doing only one thing scores (n - 1) / n (previous token) or |r| / n (the
// repeat templates: only the second copy's queries have an earlier copy). On text the second number
// is the text's: a head doing only repeat attention at shift s scores the share of queries that have
// a target, a key j = e + s (0 <= j <= i) after an earlier occurrence e of their token; averaged over
// the sequences, with (n - 1) / n likewise. On [BOS] + r + r these are exactly (n - 1) / n and |r| / n,
// so the rules are the same rule; a head "shows" a behaviour at the same fraction of what the
// template allows (repeat_shift_s likewise, s = 2 .. 8). shifted_induction compares the larger of shifts -1 and 2 with the larger of their
// attainable shares (the larger is the harder to reach half of). The attention to BOS on text is
// averaged over the first half of each sequence, the queries it is averaged over on [BOS] + r + r of
// the same length (forward/head_detectors.hpp's bos_queries::first_half).
// Result-side only (standard library and the rules), so a document's reader rebuilds the rules from
// the sequences it holds.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/detect/behaviour_rules.hpp"
#include "qkov/forward/head_scores.hpp"
#include "qkov/forward/token_id.hpp"

namespace qkov::detect {

/// What a head doing only one thing scores on the text, averaged over its sequences.
struct text_attainable {
    double previous_token = 0;
    std::array<double, forward::repeat_shift_count> by_shift{};  ///< per forward::repeat_shifts
};

/// The attainable scores of `sequences` (each at least one token).
inline text_attainable attainable_on(const std::vector<std::vector<forward::token_id>>& sequences)
{
    if (sequences.empty()) throw std::invalid_argument("qkov: a text needs at least one sequence");
    text_attainable a;
    for (const auto& t : sequences) {
        const std::size_t n = t.size();
        if (n == 0) throw std::invalid_argument("qkov: a text's sequence is empty");
        a.previous_token += static_cast<double>(n - 1) / static_cast<double>(n);
        // Per token its first and its latest occurrence so far: an earlier occurrence e of t_i with
        // 0 <= e + s <= i exists iff the latest (largest e < i) fits s < 0's lower end or the first
        // fits s > 0's upper end.
        std::map<forward::token_id, std::pair<std::size_t, std::size_t>> seen;  // token -> (first, latest)
        std::array<std::size_t, forward::repeat_shift_count> with_target{};
        for (std::size_t i = 0; i < n; ++i) {
            const auto it = seen.find(t[i]);
            if (it != seen.end()) {
                const auto [first, latest] = it->second;
                for (std::size_t m = 0; m < forward::repeat_shift_count; ++m) {
                    const int s = forward::repeat_shifts[m];
                    const bool fits = s < 0 ? latest >= static_cast<std::size_t>(-s) : first + static_cast<std::size_t>(s) <= i;
                    with_target[m] += fits ? 1 : 0;
                }
                it->second.second = i;
            } else {
                seen.emplace(t[i], std::pair{i, i});
            }
        }
        for (std::size_t m = 0; m < forward::repeat_shift_count; ++m) a.by_shift[m] += static_cast<double>(with_target[m]) / static_cast<double>(n);
    }
    const auto count = static_cast<double>(sequences.size());
    a.previous_token /= count;
    for (auto& x : a.by_shift) x /= count;
    return a;
}

/// behaviour_rules() with the thresholds and reasons of the text's templates (see the top of the file).
inline std::vector<behaviour_rule> text_behaviour_rules(const text_attainable& a, double fraction)
{
    auto rules = behaviour_rules(1, fraction);  // |r| only sets the thresholds replaced below
    const auto rule = [&rules](const char* name) -> behaviour_rule& {
        for (auto& r : rules)
            if (r.name == name) return r;
        throw std::logic_error(std::string("qkov: no behaviour rule named ") + name + " to set on text");
    };
    const std::string majority = "a majority of the attention a head could put there";
    const double shifted = std::max(a.by_shift[forward::shift_index(-1)], a.by_shift[forward::shift_index(2)]);
    rule("previous_token").threshold = fraction * a.previous_token;
    rule("previous_token").reason = majority + " ((n - 1) / n, averaged over the sequences)";
    rule("duplicate_token").threshold = fraction * a.by_shift[forward::shift_index(0)];
    rule("duplicate_token").reason = majority + " (the share of queries whose token occurred earlier in the text)";
    rule("induction").threshold = fraction * a.by_shift[forward::shift_index(1)];
    rule("induction").reason = majority + " (the share of queries whose token occurred earlier, with a token after it)";
    rule("shifted_induction").threshold = fraction * shifted;
    rule("shifted_induction").reason = majority + " (the larger share of queries with a target at shift -1 or 2)";
    for (int s = 2; s <= static_cast<int>(forward::largest_offset); ++s) {
        auto& r = rule(labels::repeat_shift_name(static_cast<std::size_t>(s)).c_str());
        r.threshold = fraction * a.by_shift[forward::shift_index(s)];
        r.reason = majority + " (the share of queries with a target at shift " + std::to_string(s) + ")";
    }
    rule("sink").measure = "mean attention to BOS over queries 1 .. (n - 1) / 2 (the first half: the queries of [BOS] + r + r of the same length)";
    // A text in which no query has a target at a template's shift lets no head show it: the
    // threshold would be 0, which every head meets. Such a behaviour is undecided on that text.
    for (auto& r : rules)
        if (r.threshold == 0 && r.name != "sink") {
            r.decidable = false;
            r.reason += "; this text has no query with a target for it, so no head can show it here (undecided)";
        }
    return rules;
}

} // namespace qkov::detect
