// Labels from weights: hypotheses, each given only when all of its tests hold, each test's number
// kept beside it (head_structure.hpp), "undecided" with a reason when the file lacks what a test
// needs. The rules and the thresholds' origins are in docs/SCAN-LABELS.md; the thresholds come from
// the constructions the labels name, not from fitting a model.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "qkov/scan/head_structure.hpp"

namespace qkov::scan {

struct label_thresholds {
    double one_direction = 0.9;      ///< sigma_1^2 / sum sigma^2 of W_q and of W_k (R7: 1 for seed 001's head)
    double constant_reading = 0.25;  ///< std / |mean| of the direction's reading over the vocabulary
    double offset_margin = 0.05;     ///< (s(best) - runner-up) / (max s - min s) for an offset label
    double slow_share = 0.5;         ///< QK energy in slow pairs and unrotated dimensions (R12)
    double copying = 0.7;            ///< eigenvalue copying score (K2)
    double position_queries = 0.9;   ///< learned positions: share of queries whose best key is at the offset
    double position_weight = 0.5;    ///< learned positions: mean softmax weight at the offset
    std::size_t context = 0;         ///< offsets 0 .. context for the slow-pair test and the profile; 0: the model's
                                     ///< max_positions, or default_context when the file does not say
    static constexpr std::size_t default_context = 4096;
};

struct undecided_label {
    std::string label, reason;
};

struct head_labels {
    std::vector<std::string> labels;
    std::vector<undecided_label> undecided;
};

/// The share the slow pairs must reach: at least slow_share, and at least halfway from the even
/// spread to all of it or twice the even spread, whichever is smaller (a partial-rotary head
/// whose unrotated block is most of its width is not semantic for that alone).
inline double semantic_share_needed(double baseline, const label_thresholds& t)
{
    return std::max(t.slow_share, std::min(2 * baseline, (1 + baseline) / 2));
}

inline head_labels label_head(const head_structure& s, const std::optional<double>& copying_score, const label_thresholds& t)
{
    head_labels out;
    const bool one_direction = s.one_direction_q >= t.one_direction && s.one_direction_k >= t.one_direction;
    bool positional = false;
    if (one_direction) {
        if (!s.reading_q || !s.reading_k)
            out.undecided.push_back({"positional", "W_q and W_k read one direction each, but the file has no token embedding to tell whether it is constant"});
        else if (s.reading_q->variation() <= t.constant_reading && s.reading_k->variation() <= t.constant_reading)
            positional = true;
    }
    if (positional) {
        out.labels.push_back("positional");
        if (s.rope && s.profile) {
            if (!s.rope->angles_modelled)
                out.undecided.push_back({"offset", "RoPE scaling '" + s.rope->angles + "' is not modelled by the offset profile"});
            else if (s.profile->runner_up_fraction >= t.offset_margin)
                out.labels.push_back(s.profile->best == 1 ? "previous_token" : "offset_" + std::to_string(s.profile->best));
        }
    }
    if (const auto& p = s.learned_positions; p && p->query_share >= t.position_queries && p->mean_weight >= t.position_weight)
        out.labels.push_back(p->offset == 1 ? "previous_token" : "offset_" + std::to_string(p->offset));
    if (!s.rope) {
        out.undecided.push_back({"semantic", "the model has no RoPE: its positional part is not in W_q, W_k"});
    } else if (!positional && s.rope->slow_share >= semantic_share_needed(s.rope->slow_baseline, t)) {
        out.labels.push_back("semantic");
    }
    if (!copying_score)
        out.undecided.push_back({"copy", "no copying score (the file lacks W_E or W_U, or the head's OV eigenvalues all vanish)"});
    else if (*copying_score >= t.copying)
        out.labels.push_back("copy");
    return out;
}

} // namespace qkov::scan
