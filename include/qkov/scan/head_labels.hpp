// Labels from weights: hypotheses about what a head does, each from one rule of the closed
// vocabulary (labels/vocabulary.hpp: each label's rule, reason and judging behaviours), each rule a principle, the numbers it read kept
// beside it, "undecided" with a reason where the file lacks what a rule needs, and "certified"
// where interval arithmetic proves the rule's inequality for the stored weights and the proxy
// input (docs/SCAN-LABELS.md). A new label is one row of the vocabulary plus its rule in label_head and its test.
//
// The seeds' searches (claims R7, R12) are kept as construction checks under their own names
// (seed_searches): they find heads built the seeds' way, which is what the seed-head model checks;
// on trained models they are evidence, not labels.
#pragma once

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "qkov/labels/vocabulary.hpp"
#include "qkov/scan/circuit_evidence.hpp"
#include "qkov/scan/head_structure.hpp"
#include "qkov/scan/mean_field_evidence.hpp"
#include "qkov/scan/token_copying_result.hpp"

namespace qkov::scan {

struct label_thresholds {
    // Labels (labels::label_rows()).
    double offset_mass = labels::majority;            ///< previous_token: the predicted score; offset_k: predicted p(k); positional: the top two offsets
    double sink = labels::sink_threshold;  ///< predicted p(BOS)
    double semantic_swing = std::numbers::ln2;  ///< nats: position cannot double a key's weight
    double copy_top1 = labels::majority;  ///< per-token top-1 share
    double copying = 0.7;                ///< centred eigenvalue copying score (K2); its negative for suppression
    double suppression_bottom10 = labels::majority;  ///< per-token bottom-10 share
    std::size_t window = labels::largest_offset;  ///< offsets 0 .. window predicted
    std::size_t queries = 50;            ///< the proxy sequence's length past BOS (the last query)
    std::size_t copy_tokens = 4096;      ///< tokens read by the per-token test (all of V when V is at most this)
    std::size_t content_tokens = 512;    ///< of those, the tokens whose content the predicted attention draws from
    std::size_t circuit_tokens = 4096;   ///< of those, the tokens the circuit search's diagonal tests read (rows and columns)
    double circuit_share = labels::majority;  ///< a circuit label: its top-1 share reaches this
    double content_deviations = 2;       ///< certificates hold for every content within this many standard deviations
    // The seeds' searches (construction checks, claims R7 and R12).
    double one_direction = 0.9;      ///< sigma_1^2 / sum sigma^2 of W_q and of W_k (R7: 1 for seed 001's head)
    double constant_reading = 0.25;  ///< std / |mean| of the direction's reading over the vocabulary
    double slow_share = 0.5;         ///< QK energy in slow pairs and unrotated dimensions (R12)
    std::size_t context = 0;         ///< offsets 0 .. context for the slow-pair test and the seed profile; 0: the model's
                                     ///< max_positions, or default_context when the file does not say
    static constexpr std::size_t default_context = 4096;
};

struct undecided_label {
    std::string label, reason;
};

/// A condition of a label's rule that interval arithmetic proves while the rule's other conditions
/// are measured: the label is not certified, the part is, under its own name.
struct certified_part {
    std::string label, part, statement;
};

struct head_labels {
    std::vector<std::string> labels;     ///< hypotheses, in the vocabulary's order
    std::vector<std::string> certified;  ///< those of labels every condition of whose rule interval arithmetic proves
    std::vector<certified_part> certified_parts;  ///< proved conditions of labels that are not certified (semantic's swing)
    std::vector<undecided_label> undecided;
    std::vector<std::string> seed_searches;  ///< rank_one_reading (R7), bottom_heavy (R12): construction checks
};

/// The share the slow pairs must reach for the bottom-heavy search: at least slow_share, and at
/// least halfway from the even spread to all of it or twice the even spread, whichever is smaller.
inline double semantic_share_needed(double baseline, const label_thresholds& t)
{
    return std::max(t.slow_share, std::min(2 * baseline, (1 + baseline) / 2));
}

/// The seeds' searches on a head's structure (claims R7, R12).
inline std::vector<std::string> seed_searches(const head_structure& s, const label_thresholds& t)
{
    std::vector<std::string> found;
    const bool one_direction = s.one_direction_q >= t.one_direction && s.one_direction_k >= t.one_direction;
    const bool constant = s.reading_q && s.reading_k && s.reading_q->variation() <= t.constant_reading && s.reading_k->variation() <= t.constant_reading;
    if (one_direction && constant) found.emplace_back("rank_one_reading");
    if (s.rope && !(one_direction && constant) && s.rope->slow_share >= semantic_share_needed(s.rope->slow_baseline, t)) found.emplace_back("bottom_heavy");
    return found;
}

/// What the label rules read of a head; an absent part comes with the reason it is absent.
struct label_evidence {
    const mean_field_evidence* mean_field = nullptr;
    std::string mean_field_missing;
    const token_copying* copying = nullptr;
    std::string copying_missing;
    std::optional<double> centred_copying_score;
    const head_circuit* circuit = nullptr;  ///< the head's circuit, when its search found one (circuit_search.hpp)
};

inline head_labels label_head(const head_structure& s, const label_evidence& e, const label_thresholds& t)
{
    head_labels out;
    out.seed_searches = seed_searches(s, t);
    const auto give = [&](const std::string& label, bool certified) {
        out.labels.push_back(label);
        if (certified) out.certified.push_back(label);
    };
    bool positional = false;
    if (const auto* m = e.mean_field) {
        const auto& p = m->by_offset;
        const bool lower = !m->by_offset_lower.empty();
        if (m->previous >= t.offset_mass) {
            give("previous_token", m->previous_lower && *m->previous_lower >= t.offset_mass);
            positional = true;
        }
        for (std::size_t k = 0; k < p.size(); ++k)
            if (k != 1 && p[k] >= t.offset_mass) {  // offset 1 is previous_token's, over every query
                give(labels::offset_name(k), lower && m->by_offset_lower[k] >= t.offset_mass);
                positional = true;
            }
        std::vector<std::size_t> order(p.size());
        for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
        if (order.size() >= 2 && p[order[0]] + p[order[1]] >= t.offset_mass) {
            give("positional", m->top_two_lower && *m->top_two_lower >= t.offset_mass);
            positional = true;
        }
        if (m->bos >= t.sink) give("sink", m->bos_lower && *m->bos_lower >= t.sink);
        if (!positional) {
            // Position cannot decide; content must be able to: two standard deviations of a key's
            // content score reach ln 2 (a head whose scores barely move attends almost uniformly).
            // Only the swing is proved; the content's spread and "no offset holds the majority" are
            // measured, so semantic is never certified as a whole (certified_parts says what is).
            const bool content_decides = m->content_spread && 2 * *m->content_spread >= t.semantic_swing;
            if (m->swing_bound && *m->swing_bound <= t.semantic_swing && content_decides) {
                give("semantic", false);
                out.certified_parts.push_back({"semantic", "swing",
                                               "over offsets 0.." + std::to_string(m->window) + " position moves a key's score by at most " +
                                                   std::to_string(*m->swing_bound) + " nats (<= ln 2) for the proxy input's mean field"});
            }
            else if (m->swing_bound && *m->swing_bound <= t.semantic_swing)
                out.undecided.push_back({"semantic", m->content_spread ? "position cannot double a key's weight, but neither can content (two standard "
                                                                          "deviations of a key's content score are " +
                                                                              std::to_string(2 * *m->content_spread) + " nats): the head attends almost uniformly"
                                                                        : "position cannot double a key's weight; the content's spread is not measured "
                                                                          "(no forward pass past this layer's input)"});
            else if (m->swing <= t.semantic_swing)
                out.undecided.push_back({"semantic", "the swing " + std::to_string(m->swing) + " nats is below ln 2 but no certified bound reaches it"});
            else
                out.undecided.push_back({"semantic", "position can move a logit by " + std::to_string(m->swing) + " nats over offsets 0.." +
                                                         std::to_string(m->window) + " (more than ln 2), though no offset holds the majority"});
        }
    } else {
        for (const char* l : {"previous_token", "positional", "sink", "semantic"}) out.undecided.push_back({l, e.mean_field_missing});
    }
    // Content that decides where a position-bound head looks cannot be read from its weights: a head
    // whose attention position decides gets no circuit label, whatever its content circuit would do.
    if (e.circuit && !positional) give(e.circuit->label, false);
    if (const auto* c = e.copying) {
        const double eig = e.centred_copying_score.value_or(NAN);
        if (c->top1_share >= t.copy_top1 && eig >= t.copying) give("copy", false);
        if (c->bottom10_share >= t.suppression_bottom10 && eig <= -t.copying) give("copy_suppression", false);
    } else {
        for (const char* l : {"copy", "copy_suppression"}) out.undecided.push_back({l, e.copying_missing});
    }
    return out;
}

} // namespace qkov::scan
