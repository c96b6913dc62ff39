// Where a head's labels from its weights (qkov scan, docs/SCAN-LABELS.md) and its measured
// behaviour (head_detection.hpp) agree. Each weight label is a hypothesis about the pattern a head
// makes; the detectors test three patterns, so a label is confirmed or contradicted only where one
// of them bears on it, and "not tested" otherwise. The rules (docs/DETECT.md):
//
//   weight label       confirmed when the head shows     contradicted when it shows
//   previous_token     previous_token                    anything else (the label predicts it)
//   offset_k (k != 1)  -                                 previous_token (offset 1, not k)
//   positional         previous_token                    duplicate_token or induction (content)
//   semantic           duplicate_token or induction      previous_token without either
//   copy               -                                 -   (an OV property; patterns do not see it)
//
// previous_token's "anything else" means: the head does not show previous_token. A behaviour a head
// shows that none of its weight labels is confirmed by is listed as "behaviour without a weight
// label". Disagreements are findings about the model or the labels, not failures of either.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "qkov/detect/head_detection.hpp"
#include "qkov/report/joined_text.hpp"

namespace qkov::detect {

/// One head's labels as the scan gave them.
struct weight_labels {
    std::size_t layer = 0, head = 0;
    std::vector<std::string> labels;
};

enum class verdict { confirmed, contradicted, not_tested };

inline const char* verdict_name(verdict v)
{
    return v == verdict::confirmed ? "confirmed" : v == verdict::contradicted ? "contradicted" : "not tested";
}

struct label_verdict {
    std::size_t layer = 0, head = 0;
    std::string label;
    verdict outcome = verdict::not_tested;
    std::string reason;  ///< the behaviours (and scores) the verdict rests on
};

struct unexplained_behaviour {
    std::size_t layer = 0, head = 0;
    std::string behaviour;
    double mean = 0;
};

struct comparison {
    std::vector<label_verdict> verdicts;            ///< one per (head, weight label)
    std::vector<unexplained_behaviour> unexplained;  ///< behaviours no weight label of the head predicts
    std::size_t confirmed = 0, contradicted = 0, not_tested = 0, heads_compared = 0;
};

namespace detail {

/// The behaviours that confirm `label`, and those that contradict it (applied when none confirms).
struct label_rule {
    std::vector<std::string> confirming, contradicting;
    bool contradicted_without_confirmation = false;  ///< previous_token: absence of the behaviour contradicts
};

inline label_rule rule_for(const std::string& label)
{
    if (label == "previous_token") return {{"previous_token"}, {}, true};
    if (label.starts_with("offset_")) return {{}, {"previous_token"}, false};
    if (label == "positional") return {{"previous_token"}, {"duplicate_token", "induction"}, false};
    if (label == "semantic") return {{"duplicate_token", "induction"}, {"previous_token"}, false};
    return {};  // copy, and any label the detectors do not bear on
}

inline std::string shown_list(const head_behaviour& h)
{
    if (h.behaviours.empty()) return "shows none of the three behaviours";
    return "shows " + report::joined(h.behaviours);
}

} // namespace detail

/// Compares every head present in both; a head the scan did not cover (--layers) is left out.
inline comparison compare_weights_with_behaviour(const std::vector<weight_labels>& scanned, const detection_result& detected)
{
    comparison out;
    for (const auto& w : scanned) {
        const head_behaviour* found = detected.find(w.layer, w.head);
        if (found == nullptr) continue;
        const head_behaviour& h = *found;
        ++out.heads_compared;
        std::vector<std::string> explained;
        for (const auto& label : w.labels) {
            const auto rule = detail::rule_for(label);
            label_verdict v{w.layer, w.head, label, verdict::not_tested, detail::shown_list(h)};
            for (const auto& b : rule.confirming)
                if (h.shows(b)) v.outcome = verdict::confirmed, explained.push_back(b);
            if (v.outcome != verdict::confirmed) {
                bool against = rule.contradicted_without_confirmation;
                for (const auto& b : rule.contradicting) against = against || h.shows(b);
                if (against) v.outcome = verdict::contradicted;
                else if (rule.confirming.empty() && rule.contradicting.empty())
                    v.reason = "no detector measures what '" + label + "' predicts";
            }
            (v.outcome == verdict::confirmed ? out.confirmed : v.outcome == verdict::contradicted ? out.contradicted : out.not_tested) += 1;
            out.verdicts.push_back(std::move(v));
        }
        for (std::size_t k = 0; k < 3; ++k) {
            const std::string b = behaviour_names[k];
            if (!h.shows(b)) continue;
            bool is_explained = false;
            for (const auto& e : explained) is_explained = is_explained || e == b;
            if (!is_explained) out.unexplained.push_back({h.layer, h.head, b, h.score(k).mean});
        }
    }
    return out;
}

} // namespace qkov::detect
