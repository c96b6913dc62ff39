// Where a head's labels from its weights (qkov scan, docs/SCAN-LABELS.md) and its measured
// behaviour (head_detection.hpp) agree. Each weight label is a hypothesis about what the head does;
// the vocabulary's row of each label (labels/vocabulary.hpp) says which measured behaviours confirm
// it and which contradict it (docs/DETECT.md); label_rules() spells them out per name.
//
// For a label on a head:
//   confirmed     the head shows a confirming behaviour;
//   undecided     otherwise, a confirming behaviour is undecided: the 95 % interval of its measured
//                 mean holds the threshold (behaviour_rules.hpp), so the samples cannot say;
//   contradicted  otherwise, the head shows a contradicting behaviour, or the label predicts a
//                 behaviour (absence_contradicts) that was measured on the head and is absent;
//   not tested    otherwise (nothing measured bears on the label).
// And for a head without the label:
//   missed        the head shows a confirming behaviour of a label it does not carry, and no label it
//                 carries predicts that behaviour (an undecided behaviour is not a miss: it is listed
//                 with the head, not counted).
// A contradicted label the scan certified ("certified" in its JSON) is counted apart: a certificate
// that behaviour contradicts is a finding about the certificate's assumptions, to be read first.
// Disagreements are findings about the model or the labels, not failures of either: the labels read
// each head alone from the embedding side, the forward pass sees what earlier layers wrote.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "qkov/detect/detection_result.hpp"
#include "qkov/detect/scan_labels.hpp"
#include "qkov/labels/vocabulary.hpp"
#include "qkov/report/joined_text.hpp"

namespace qkov::detect {

/// One weight label: the behaviours that confirm it, those that contradict it, and why.
struct label_rule {
    std::string label;
    std::vector<std::string> confirming;     ///< any of these shown confirms the label
    std::vector<std::string> contradicting;  ///< shown, with none confirming, contradicts it
    bool absence_contradicts = false;        ///< the label predicts a confirming behaviour: its measured absence contradicts
    std::string reason;
};

/// Every weight label the comparison knows, in the vocabulary's order (labels/vocabulary.hpp), a
/// numbered label once per number with the behaviours of its number.
inline std::vector<label_rule> label_rules()
{
    std::vector<label_rule> rules;
    for (const auto& row : labels::label_rows()) {
        const auto numbers = labels::numbered(row.kind) ? labels::numbers_of(row.kind) : std::vector<std::size_t>{0};
        for (const std::size_t n : numbers) {
            label_rule r{labels::name_of(row.kind, n), {}, {}, row.absence_contradicts, labels::with_number(row.prediction, n)};
            for (const auto f : row.confirmed_by)
                for (auto& b : labels::judging_names(f, row.kind, n)) r.confirming.push_back(std::move(b));
            for (const auto f : row.contradicted_by)
                for (auto& b : labels::judging_names(f, row.kind, n)) r.contradicting.push_back(std::move(b));
            rules.push_back(std::move(r));
        }
    }
    return rules;
}

enum class verdict { confirmed, contradicted, missed, not_tested, undecided };

inline const char* verdict_name(verdict v)
{
    switch (v) {
    case verdict::confirmed: return "confirmed";
    case verdict::contradicted: return "contradicted";
    case verdict::missed: return "missed";
    case verdict::not_tested: return "not tested";
    case verdict::undecided: return "undecided";
    }
    return "?";
}

struct label_verdict {
    std::size_t layer = 0, head = 0;
    std::string label;
    verdict outcome = verdict::not_tested;
    bool certified = false;  ///< the scan certified the label
    std::string reason;      ///< the behaviours the verdict rests on
};

/// One label's confusion counts over the heads compared.
struct label_counts {
    std::string label;
    std::size_t confirmed = 0, contradicted = 0, missed = 0, not_tested = 0, certified_contradicted = 0, undecided = 0;
};

struct comparison {
    std::vector<label_verdict> verdicts;  ///< one per (head, label carried), and one per missed (head, label)
    std::vector<label_counts> per_label;  ///< label_rules()' order, then labels outside it as met
    std::size_t heads_compared = 0;

    [[nodiscard]] label_counts total() const
    {
        label_counts t{"all labels"};
        for (const auto& c : per_label)
            t.confirmed += c.confirmed, t.contradicted += c.contradicted, t.missed += c.missed, t.not_tested += c.not_tested,
                t.certified_contradicted += c.certified_contradicted, t.undecided += c.undecided;
        return t;
    }
};

namespace detail {

inline std::string shown_list(const head_behaviour& h)
{
    std::string out = h.behaviours.empty() ? "shows no behaviour" : "shows " + report::joined(h.behaviours);
    if (!h.undecided.empty()) out += "; undecided (95 % interval holds the threshold): " + report::joined(h.undecided);
    return out;
}

inline bool shows_any(const head_behaviour& h, const std::vector<std::string>& behaviours)
{
    for (const auto& b : behaviours)
        if (h.shows(b)) return true;
    return false;
}

inline bool undecided_on_any(const head_behaviour& h, const std::vector<std::string>& behaviours)
{
    for (const auto& b : behaviours)
        if (h.undecided_on(b)) return true;
    return false;
}

/// Every behaviour in `behaviours` was measured on the head (copying may not have been).
inline bool all_measured(const detection_result& r, const head_behaviour& h, const std::vector<std::string>& behaviours)
{
    for (const auto& b : behaviours) {
        const behaviour_rule* rule = r.rule(b);
        if (rule == nullptr || !rule->value(h)) return false;
    }
    return true;
}

inline label_counts& counts_of(comparison& c, const std::string& label)
{
    for (auto& x : c.per_label)
        if (x.label == label) return x;
    c.per_label.push_back({label});
    return c.per_label.back();
}

} // namespace detail

/// Compares every head present in both; a head the scan did not cover (--layers) is left out.
inline comparison compare_weights_with_behaviour(const std::vector<weight_labels>& scanned, const detection_result& detected)
{
    comparison out;
    const auto rules = label_rules();
    for (const auto& rule : rules) out.per_label.push_back({rule.label});
    const auto rule_of = [&rules](const std::string& label) -> const label_rule* {
        for (const auto& r : rules)
            if (r.label == label) return &r;
        return nullptr;
    };
    for (const auto& w : scanned) {
        const head_behaviour* found = detected.find(w.layer, w.head);
        if (found == nullptr) continue;
        const head_behaviour& h = *found;
        ++out.heads_compared;
        for (const auto& label : w.labels) {
            label_verdict v{w.layer, w.head, label, verdict::not_tested, w.is_certified(label), detail::shown_list(h)};
            const label_rule* rule = rule_of(label);
            if (rule == nullptr) v.reason = "'" + label + "' is not a label the comparison knows";
            else if (detail::shows_any(h, rule->confirming)) v.outcome = verdict::confirmed;
            else if (detail::undecided_on_any(h, rule->confirming)) v.outcome = verdict::undecided;
            else if (detail::shows_any(h, rule->contradicting) || (rule->absence_contradicts && detail::all_measured(detected, h, rule->confirming)))
                v.outcome = verdict::contradicted;
            else if (rule->absence_contradicts) v.reason = "not measured on this head: " + report::joined(rule->confirming);
            auto& counts = detail::counts_of(out, label);
            (v.outcome == verdict::confirmed      ? counts.confirmed
             : v.outcome == verdict::contradicted ? counts.contradicted
             : v.outcome == verdict::undecided    ? counts.undecided
                                                  : counts.not_tested) += 1;
            if (v.outcome == verdict::contradicted && v.certified) ++counts.certified_contradicted;
            out.verdicts.push_back(std::move(v));
        }
        // A behaviour is missed when no label the head carries predicts it: a head labelled
        // induction that shows induction has not missed `semantic`, which induction also confirms.
        const auto predicted = [&](const std::string& behaviour) {
            for (const auto& label : w.labels)
                if (const label_rule* r = rule_of(label); r && std::find(r->confirming.begin(), r->confirming.end(), behaviour) != r->confirming.end()) return true;
            return false;
        };
        const auto missed = [&](const label_rule& rule) {
            for (const auto& b : rule.confirming)
                if (h.shows(b) && !predicted(b)) return true;
            return false;
        };
        for (const auto& rule : rules)
            if (!w.has(rule.label) && missed(rule)) {
                out.verdicts.push_back({w.layer, w.head, rule.label, verdict::missed, false, detail::shown_list(h)});
                ++detail::counts_of(out, rule.label).missed;
            }
    }
    return out;
}

} // namespace qkov::detect
