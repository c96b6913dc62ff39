// The detection's document (`qkov detect --json`, schema "qkov.detect/2",
// docs/schemas/detect.schema.json): written and read here, every key spelled once (keys::),
// so the writer and the reader cannot drift apart.
//
//   schema      "qkov.detect/2"
//   model       the model's summary (as qkov inspect), with its path
//   detection   the sequences, the measure, the attainable scores, and every behaviour rule
//               (name, measure, threshold, reason)
//   heads       per head: the TL scores' means (previous_token, duplicate_token, induction) and
//               spreads, bos, attention_by_offset, repeat_attention_by_shift (mean and spread each),
//               copying (queries and shares, or null), and the behaviours it shows
//   comparison  null without a scan; else the label rules, the confusion counts per label and in
//               total, every verdict, and the input the labels were judged on (input_pairing.hpp)
//   text        null unless the detection also measured text (--text): what the text is, every
//               sequence's token ids (so anyone can recompute the scores), the attainable scores,
//               thresholds and rules on it, and every head's scores there, as in "heads"
// Reading gives back what writing took (tests/detect_tests.cpp round-trips a document); the rules
// are not read but rebuilt from the length and fraction (on text, from its sequences), as the
// detection built them.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/detect/detection_result.hpp"
#include "qkov/io/document_schemas.hpp"
#include "qkov/detect/text_behaviour.hpp"
#include "qkov/detect/weights_vs_behaviour.hpp"

namespace qkov::detect {

/// Every key of the document.
namespace keys {
inline constexpr const char *schema = "schema", *model = "model", *detection = "detection", *heads = "heads", *comparison = "comparison";
// detection
inline constexpr const char *sequence = "sequence", *length = "length", *tokens_per_sequence = "tokens_per_sequence", *samples = "samples",
                            *seed = "seed", *bos = "bos", *vocabulary = "vocabulary", *dtype = "dtype", *measure = "measure", *spread = "spread",
                            *attainable = "attainable", *behaviour_fraction = "behaviour_fraction", *thresholds = "thresholds",
                            *behaviours = "behaviours", *name = "name", *threshold = "threshold", *reason = "reason",
                            *largest_offset = "largest_offset", *repeat_shifts = "repeat_shifts", *copy_bottom_ranks = "copy_bottom_ranks",
                            *copying_not_measured = "copying_not_measured";
// heads
inline constexpr const char *layer = "layer", *head = "head", *mean = "mean", *attention_by_offset = "attention_by_offset",
                            *repeat_attention_by_shift = "repeat_attention_by_shift", *copying = "copying", *queries = "queries",
                            *top1_share = "top1_share", *bottom10_share = "bottom10_share", *top1 = "top1", *bottom10 = "bottom10", *shows = "shows",
                            *undecided = "undecided", *decision = "decision";
// comparison
inline constexpr const char *scan = "scan", *rules = "rules", *label = "label", *confirming = "confirming", *contradicting = "contradicting",
                            *absence_contradicts = "absence_contradicts", *heads_compared = "heads_compared", *per_label = "per_label",
                            *total = "total", *confirmed = "confirmed", *contradicted = "contradicted", *missed = "missed",
                            *not_tested = "not_tested", *certified_contradicted = "certified_contradicted", *verdicts = "verdicts",
                            *verdict = "verdict", *certified = "certified", *input = "input";
// text
inline constexpr const char *text = "text", *tokens = "tokens";
} // namespace keys

/// What the document holds besides the model's summary.
struct detection_document {
    nlohmann::json model;  ///< the summary, as the caller wrote it
    std::string dtype;
    detection_result result;
    std::optional<comparison> compared;
    std::string scan_file;  ///< empty without a comparison
    std::optional<detection_result> text;  ///< the same heads on text, when asked for (--text)
    std::string compared_on = scan::scan_json_keys::input_random_tokens;  ///< the input whose behaviour judged the labels
};

namespace detail {

inline nlohmann::json statistics_json(const score_statistics& s) { return {{keys::mean, s.mean}, {keys::spread, s.spread}}; }

inline score_statistics statistics_from(const nlohmann::json& j) { return {j.at(keys::mean).get<double>(), j.at(keys::spread).get<double>()}; }

inline nlohmann::json counts_json(const label_counts& c)
{
    return {{keys::label, c.label},         {keys::confirmed, c.confirmed},   {keys::contradicted, c.contradicted},
            {keys::missed, c.missed},       {keys::not_tested, c.not_tested}, {keys::certified_contradicted, c.certified_contradicted},
            {keys::undecided, c.undecided}};
}

inline label_counts counts_from(const nlohmann::json& j)
{
    return {j.at(keys::label).get<std::string>(),          j.at(keys::confirmed).get<std::size_t>(), j.at(keys::contradicted).get<std::size_t>(),
            j.at(keys::missed).get<std::size_t>(),         j.at(keys::not_tested).get<std::size_t>(),
            j.at(keys::certified_contradicted).get<std::size_t>(), j.at(keys::undecided).get<std::size_t>()};
}

inline verdict verdict_from(const std::string& name)
{
    for (const verdict v : {verdict::confirmed, verdict::contradicted, verdict::missed, verdict::not_tested, verdict::undecided})
        if (name == verdict_name(v)) return v;
    throw std::invalid_argument("qkov: \"" + name + "\" is not a verdict");
}

inline nlohmann::json head_json(const head_behaviour& h)
{
    nlohmann::json by_offset = nlohmann::json::array(), by_shift = nlohmann::json::object(), spread = nlohmann::json::object();
    for (const auto& s : h.by_offset) by_offset.push_back(statistics_json(s));
    for (std::size_t m = 0; m < forward::repeat_shift_count; ++m) by_shift[std::to_string(forward::repeat_shifts[m])] = statistics_json(h.by_shift[m]);
    for (std::size_t k = 0; k < 3; ++k) spread[behaviour_names[k]] = h.score(k).spread;
    nlohmann::json copying = nullptr;
    if (h.copying)
        copying = {{keys::queries, h.copying->queries},
                   {keys::top1, h.copying->top1},
                   {keys::bottom10, h.copying->bottom},
                   {keys::top1_share, h.copying->top1_share()},
                   {keys::bottom10_share, h.copying->bottom_share()}};
    nlohmann::json j = {{keys::layer, h.layer},
                        {keys::head, h.head},
                        {keys::spread, spread},
                        {keys::bos, statistics_json(h.bos)},
                        {keys::attention_by_offset, by_offset},
                        {keys::repeat_attention_by_shift, by_shift},
                        {keys::copying, copying},
                        {keys::shows, h.behaviours},
                        {keys::undecided, h.undecided}};
    for (std::size_t k = 0; k < 3; ++k) j[behaviour_names[k]] = h.score(k).mean;
    return j;
}

inline head_behaviour head_from(const nlohmann::json& j)
{
    head_behaviour h;
    h.layer = j.at(keys::layer).get<std::size_t>(), h.head = j.at(keys::head).get<std::size_t>();
    score_statistics* tl[3] = {&h.previous_token, &h.duplicate_token, &h.induction};
    for (std::size_t k = 0; k < 3; ++k) *tl[k] = {j.at(behaviour_names[k]).get<double>(), j.at(keys::spread).at(behaviour_names[k]).get<double>()};
    h.bos = statistics_from(j.at(keys::bos));
    const auto& by_offset = j.at(keys::attention_by_offset);
    if (by_offset.size() != h.by_offset.size()) throw std::invalid_argument("qkov: attention_by_offset has " + std::to_string(by_offset.size()) + " offsets");
    for (std::size_t k = 0; k < h.by_offset.size(); ++k) h.by_offset[k] = statistics_from(by_offset[k]);
    for (std::size_t m = 0; m < forward::repeat_shift_count; ++m)
        h.by_shift[m] = statistics_from(j.at(keys::repeat_attention_by_shift).at(std::to_string(forward::repeat_shifts[m])));
    if (const auto& c = j.at(keys::copying); !c.is_null())
        h.copying = forward::copy_counts{c.at(keys::queries).get<std::size_t>(), c.at(keys::top1).get<std::size_t>(), c.at(keys::bottom10).get<std::size_t>()};
    h.behaviours = j.at(keys::shows).get<std::vector<std::string>>();
    h.undecided = j.at(keys::undecided).get<std::vector<std::string>>();
    return h;
}

} // namespace detail

namespace detail {
/// What the random tokens' and a text's settings share: how the heads were scored and judged.
inline nlohmann::json scoring_json(const detection_result& r)
{
    nlohmann::json attainable, thresholds, rules = nlohmann::json::array();
    for (std::size_t k = 0; k < 3; ++k) attainable[behaviour_names[k]] = r.attainable[k], thresholds[behaviour_names[k]] = r.threshold(k);
    for (const auto& rule : r.rules)
        rules.push_back({{keys::name, rule.name}, {keys::measure, rule.measure}, {keys::threshold, rule.threshold}, {keys::reason, rule.reason}});
    return {{keys::samples, r.samples},
            {keys::seed, r.seed},
            {keys::bos, r.bos},
            {keys::measure, "TransformerLens' mul: sum(pattern .* template) / sum(pattern), the attention mass on the template averaged over all queries"},
            {keys::spread, "sample standard deviation over the samples (0 for one sample)"},
            {keys::decision, "a head shows a behaviour when the 95 % interval of its mean (mean +- t(samples - 1) spread / sqrt(samples), Student's t) "
                             "lies at or above the threshold, and is undecided on it when the interval holds the threshold; copying's shares, pooled "
                             "over the samples, and one-sample runs are decided by the value alone"},
            {keys::attainable, attainable},
            {keys::behaviour_fraction, r.behaviour_fraction},
            {keys::thresholds, thresholds},
            {keys::copying_not_measured, r.copying_not_measured.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.copying_not_measured)},
            {keys::behaviours, rules}};
}

/// What scoring_json wrote back into r (the rules are rebuilt by the caller).
inline void read_scoring(const nlohmann::json& s, detection_result& r)
{
    r.samples = s.at(keys::samples).get<std::size_t>(), r.seed = s.at(keys::seed).get<std::uint64_t>(), r.bos = s.at(keys::bos).get<token_id>();
    r.behaviour_fraction = s.at(keys::behaviour_fraction).get<double>();
    for (std::size_t k = 0; k < 3; ++k) r.attainable[k] = s.at(keys::attainable).at(behaviour_names[k]).get<double>();
    if (const auto& why = s.at(keys::copying_not_measured); !why.is_null()) r.copying_not_measured = why.get<std::string>();
}

/// Every head's object, in order.
inline nlohmann::json heads_json(const detection_result& r)
{
    nlohmann::json heads = nlohmann::json::array();
    for (const auto& h : r.per_head) heads.push_back(head_json(h));
    return heads;
}
} // namespace detail

/// The "detection" object: how the sequences were made and scored, and every behaviour's rule.
inline nlohmann::json detection_settings_json(const detection_result& r, const std::string& dtype)
{
    nlohmann::json j = detail::scoring_json(r);
    j.update({{keys::sequence, "[BOS] + r + r, r = length distinct token ids drawn without BOS (std::mt19937_64 seeded with seed)"},
              {keys::length, r.length},
              {keys::tokens_per_sequence, 2 * r.length + 1},
              {keys::vocabulary, r.vocabulary},
              {keys::dtype, dtype},
              {keys::largest_offset, forward::largest_offset},
              {keys::repeat_shifts, forward::repeat_shifts},
              {keys::copy_bottom_ranks, forward::copy_bottom_ranks}});
    return j;
}

/// The "text" object: the same heads on text, with every sequence's token ids.
inline nlohmann::json text_json(const detection_result& r)
{
    const bool own = r.input == scan::scan_json_keys::input_own_text;
    nlohmann::json j = detail::scoring_json(r);
    j.update({{keys::input, r.input},
              {keys::sequence, own ? "the model's own text: [BOS] + tokens drawn one at a time from the softmax of its logits (temperature 1), "
                                     "sequence k with its own std::mt19937_64 seeded through std::seed_seq from seed and k"
                                   : "the given token ids, BOS put first where a sequence lacks it"},
              {keys::tokens, r.sequences},
              {keys::heads, detail::heads_json(r)}});
    return j;
}

inline nlohmann::json comparison_json(const std::string& scan_file, const comparison& c, const std::string& input = scan::scan_json_keys::input_random_tokens)
{
    nlohmann::json rules = nlohmann::json::array(), per_label = nlohmann::json::array(), verdicts = nlohmann::json::array();
    for (const auto& r : label_rules())
        rules.push_back({{keys::label, r.label},
                         {keys::confirming, r.confirming},
                         {keys::contradicting, r.contradicting},
                         {keys::absence_contradicts, r.absence_contradicts},
                         {keys::reason, r.reason}});
    for (const auto& x : c.per_label) per_label.push_back(detail::counts_json(x));
    for (const auto& v : c.verdicts)
        verdicts.push_back({{keys::layer, v.layer},
                            {keys::head, v.head},
                            {keys::label, v.label},
                            {keys::verdict, verdict_name(v.outcome)},
                            {keys::certified, v.certified},
                            {keys::reason, v.reason}});
    return {{keys::scan, scan_file},         {keys::rules, rules},
            {keys::heads_compared, c.heads_compared}, {keys::per_label, per_label},
            {keys::total, detail::counts_json(c.total())}, {keys::verdicts, verdicts}, {keys::input, input}};
}

/// The whole document. `model` is the model's summary (qkov inspect's), written as given.
inline nlohmann::json detection_json(const detection_document& d)
{
    return {{keys::schema, schemas::detect},
            {keys::model, d.model},
            {keys::detection, detection_settings_json(d.result, d.dtype)},
            {keys::heads, detail::heads_json(d.result)},
            {keys::comparison, d.compared ? comparison_json(d.scan_file, *d.compared, d.compared_on) : nlohmann::json(nullptr)},
            {keys::text, d.text ? text_json(*d.text) : nlohmann::json(nullptr)}};
}

/// The document as a file holds it (one space of indent, a final newline): `qkov detect --json`
/// writes this text and the Python module's Detection.to_json() returns it, the same bytes.
inline std::string detection_text(const detection_document& d) { return detection_json(d).dump(1) + "\n"; }

/// Reads a document detection_json wrote; a missing key or another schema is an error naming it.
inline detection_document read_detection_json(const nlohmann::json& j)
{
    if (!j.is_object() || j.value(keys::schema, std::string()) != schemas::detect)
        throw std::invalid_argument(std::string("qkov: not a detection document of schema ") + schemas::detect);
    detection_document d;
    try {
        d.model = j.at(keys::model);
        const auto& s = j.at(keys::detection);
        d.dtype = s.at(keys::dtype).get<std::string>();
        auto& r = d.result;
        detail::read_scoring(s, r);
        r.length = s.at(keys::length).get<std::size_t>(), r.vocabulary = s.at(keys::vocabulary).get<std::size_t>();
        r.rules = behaviour_rules(r.length, r.behaviour_fraction);
        r.layers = d.model.at("layers").get<std::size_t>(), r.heads = d.model.at("heads").get<std::size_t>();
        for (const auto& h : j.at(keys::heads)) r.per_head.push_back(detail::head_from(h));
        // A document from before the text was measured has no "text": read as none.
        if (const auto t = j.find(keys::text); t != j.end() && !t->is_null()) {
            detection_result text;
            detail::read_scoring(*t, text);
            text.input = t->at(keys::input).get<std::string>();
            text.layers = r.layers, text.heads = r.heads, text.vocabulary = r.vocabulary;
            text.sequences = t->at(keys::tokens).get<std::vector<std::vector<token_id>>>();
            text.rules = text_behaviour_rules(attainable_on(text.sequences), text.behaviour_fraction);
            text.first_sequence = text.sequences.front();
            for (const auto& h : t->at(keys::heads)) text.per_head.push_back(detail::head_from(h));
            d.text = std::move(text);
        }
        if (const auto& c = j.at(keys::comparison); !c.is_null()) {
            comparison out;
            d.compared_on = c.value(keys::input, std::string(scan::scan_json_keys::input_random_tokens));
            d.scan_file = c.at(keys::scan).get<std::string>();
            out.heads_compared = c.at(keys::heads_compared).get<std::size_t>();
            for (const auto& x : c.at(keys::per_label)) out.per_label.push_back(detail::counts_from(x));
            for (const auto& v : c.at(keys::verdicts))
                out.verdicts.push_back({v.at(keys::layer).get<std::size_t>(), v.at(keys::head).get<std::size_t>(), v.at(keys::label).get<std::string>(),
                                        detail::verdict_from(v.at(keys::verdict).get<std::string>()), v.at(keys::certified).get<bool>(),
                                        v.at(keys::reason).get<std::string>()});
            d.compared = std::move(out);
        }
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(std::string("qkov: a detection document lacks what it should hold (") + e.what() + ")");
    }
    return d;
}

} // namespace qkov::detect
