// Labels from weights: hypotheses about what a head does, each from one rule of a closed
// vocabulary (label_rules, below), each rule a principle with its reason, the numbers it read kept
// beside it, "undecided" with a reason where the file lacks what a rule needs, and "certified"
// where interval arithmetic proves the rule's inequality for the stored weights and the proxy
// input (docs/SCAN-LABELS.md). A new label is one row of label_rules plus its test in label_head.
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

#include "qkov/scan/circuit_evidence.hpp"
#include "qkov/scan/head_structure.hpp"
#include "qkov/scan/mean_field_evidence.hpp"
#include "qkov/scan/token_copying_result.hpp"

namespace qkov::scan {

/// One label of the closed vocabulary: its name, its rule, why the threshold is what it is, and the
/// behaviour of `qkov detect` that confirms it (docs/DETECT.md).
struct label_rule {
    const char* name;
    const char* rule;
    const char* reason;
    const char* confirmed_by;
};

inline constexpr label_rule label_rules[] = {
    {"previous_token", "predicted previous-token score >= 1/2: the attention on key m - 1 averaged over queries m = 1 .. N, BOS being query 1's",
     "a majority of the head's attention on the previous token, predicted for the statistic qkov detect's previous_token measures "
     "(TransformerLens' score, which counts every query)",
     "previous_token"},
    {"offset_<k>", "predicted attention at offset k >= 1/2 (k = 0 or 2 .. window)", "the same majority principle at another offset", "offset_<k>"},
    {"positional", "the two largest predicted offsets hold >= 1/2 of the attention",
     "position alone decides where most of the attention goes, even when it is split between two offsets", "positional, previous_token or offset_<k>"},
    {"sink", "predicted attention to BOS >= 0.3", "the attention-sink threshold of Gu et al. (arXiv 2410.10781)", "sink"},
    {"semantic", "positional swing over offsets 0 .. window <= ln 2, certified; two standard deviations of a key's content score >= ln 2; not positional",
     "position alone cannot double any key's weight against another while content can, so what the head attends to is decided by content",
     "duplicate_token, induction or repeat_shift_<s>"},
    {"duplicate_token", "not positional; the head's direct QK circuit on the tokens' effective embeddings: the query's own token wins its row (top-1 share >= 1/2, averaged over offsets spread over the context)",
     "a majority of the tokens raise the key holding the same token above every other key: on a repeat the head attends to the earlier copy",
     "duplicate_token"},
    {"induction", "not positional; the strongest composed circuit has shift 1 (the key reads the token one further back than the query does) and wins its row for a majority of the tokens",
     "on a repeat the key one after an earlier occurrence of the query's context holds the matching token for a majority of the tokens", "induction"},
    {"repeat_shift_<s>", "not positional; the strongest composed circuit has shift s >= 2 and wins its row for a majority of the tokens",
     "as induction, s positions after the earlier occurrence (a head that copies the next token through V-composition can attend there)", "repeat_shift_<s>"},
    {"copy", "share of tokens that are the top-1 of their own OV row >= 1/2, and centred eigenvalue score >= 0.7",
     "the head raises most tokens it reads above every other token (per token), and its OV circuit is positive in aggregate (claim K2)", "copy"},
    {"copy_suppression", "share of tokens in the bottom 10 of their own OV row >= 1/2, and centred eigenvalue score <= -0.7",
     "the head lowers most tokens it reads below almost every other token, and its OV circuit is negative in aggregate (the aggregate alone "
     "does not say it suppresses token by token, as it does not say a head copies)",
     "copy_suppression"},
};

struct label_thresholds {
    // Labels (label_rules).
    double offset_mass = 0.5;            ///< previous_token: the predicted score; offset_k: predicted p(k); positional: the top two offsets
    double sink = 0.3;                   ///< predicted p(BOS)
    double semantic_swing = std::numbers::ln2;  ///< nats: position cannot double a key's weight
    double copy_top1 = 0.5;              ///< per-token top-1 share
    double copying = 0.7;                ///< centred eigenvalue copying score (K2); its negative for suppression
    double suppression_bottom10 = 0.5;   ///< per-token bottom-10 share
    std::size_t window = 8;              ///< offsets 0 .. window predicted
    std::size_t queries = 50;            ///< the proxy sequence's length past BOS (the last query)
    std::size_t copy_tokens = 4096;      ///< tokens read by the per-token test (all of V when V is at most this)
    std::size_t content_tokens = 512;    ///< of those, the tokens whose content the predicted attention draws from
    std::size_t circuit_tokens = 4096;   ///< of those, the tokens the circuit search's diagonal tests read (rows and columns)
    double circuit_share = 0.5;          ///< a circuit label: its top-1 share reaches this
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
    std::vector<std::string> labels;     ///< hypotheses, in label_rules' order
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
                give("offset_" + std::to_string(k), lower && m->by_offset_lower[k] >= t.offset_mass);
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
