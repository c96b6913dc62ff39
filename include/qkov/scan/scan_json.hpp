// The scan's JSON document (schema docs/schemas/qkov.scan-2.schema.json), written here and only
// here: `qkov scan --json` and every other writer call scan_document, and `qkov detect --scan`
// reads the labels back through scan_json_keys, so each key is spelled once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/labels/vocabulary.hpp"
#include "qkov/scan/composition_edges.hpp"
#include "qkov/scan/scan_json_keys.hpp"
#include "qkov/scan/scan_conventions.hpp"
#include "qkov/scan/scan_facts.hpp"
#include "qkov/scan/scan_result.hpp"

namespace qkov::scan {


namespace detail {

inline nlohmann::json values(const vector& v) { return nlohmann::json(std::vector<double>(v.begin(), v.end())); }

inline nlohmann::json optional_number(const std::optional<double>& x) { return x ? nlohmann::json(*x) : nlohmann::json(nullptr); }

inline nlohmann::json reading_json(const std::optional<reading_constancy>& r)
{
    if (!r) return nullptr;
    return {{"mean", r->mean}, {"spread", r->spread}, {"variation", r->variation()}};
}

inline nlohmann::json undecided_json(const head_labels& l)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& u : l.undecided) out.push_back({{"label", u.label}, {"reason", u.reason}});
    return out;
}

inline nlohmann::json certified_parts_json(const head_labels& l)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& p : l.certified_parts) out.push_back({{"label", p.label}, {"part", p.part}, {"statement", p.statement}});
    return out;
}

inline nlohmann::json mean_field_json(const std::optional<mean_field_evidence>& m)
{
    namespace k = scan_json_keys;
    if (!m) return nullptr;
    return {{k::by_offset, m->by_offset},
            {k::bos, m->bos},
            {k::previous_token, m->previous},
            {"queries", {m->first_query, m->last_query}},
            {"window", m->window},
            {"positions", m->positions},
            {"swing", m->swing},
            {"swing_bound", optional_number(m->swing_bound)},
            {"swing_bound_every_input", optional_number(m->swing_bound_every_input)},
            {"attention_by_offset_lower_bound", m->by_offset_lower.empty() ? nlohmann::json(nullptr) : nlohmann::json(m->by_offset_lower)},
            {"top_two_lower_bound", optional_number(m->top_two_lower)},
            {"content_spread", optional_number(m->content_spread)},
            {"bos_lower_bound", optional_number(m->bos_lower)},
            {"previous_token_lower_bound", optional_number(m->previous_lower)},
            {"certificates_hold_within_content_deviations", m->content_deviations},
            {"certificate_inputs_sha256", m->inputs_sha256}};
}

inline nlohmann::json circuit_side_json(const circuit_side& s)
{
    nlohmann::json partners = nlohmann::json::array();
    for (const auto& p : s.partners) partners.push_back({{"head", {p.layer, p.head}}, {"attention", p.attention}, {"share", p.share}});
    return {{"offset", s.offset}, {"partners", std::move(partners)}};
}

inline nlohmann::json circuit_candidate_json(const circuit_candidate& c)
{
    nlohmann::json tests = nlohmann::json::array();
    for (const auto& t : c.by_offset)
        tests.push_back({{"offset", t.offset}, {"top1_share", t.top1_share}, {"top5_share", t.top5_share}, {"median_margin", t.median_margin},
                         {"median_boost", t.median_boost}});
    return {{"shift", c.shift},
            {"query", circuit_side_json(c.query)},
            {"key", circuit_side_json(c.key)},
            {"top1_share", c.top1_share},
            {"top5_share", c.top5_share},
            {"boost", c.boost},
            {"top1_interval", {c.top1_interval.first, c.top1_interval.second}},
            {"tokens", c.tokens},
            {"vocabulary", c.vocabulary},
            {"by_offset", std::move(tests)}};
}

inline nlohmann::json head_circuit_json(const head_circuit& c)
{
    nlohmann::json writes = nullptr;
    if (c.output)
        writes = {{"value", circuit_side_json(c.output->value)},
                  {"top1_share", c.output->top1_share},
                  {"top1_interval", {c.output->top1_interval.first, c.output->top1_interval.second}}};
    return {{"label", c.label}, {"circuit", circuit_candidate_json(c.circuit)}, {"writes", std::move(writes)}, {"predicts_next_token", c.predicts_next_token}};
}

/// A head's circuit search: its three strongest candidates and the circuit it is labelled by.
inline nlohmann::json circuits_json(const std::optional<circuit_search_result>& r)
{
    if (!r) return nullptr;
    nlohmann::json candidates = nlohmann::json::array();
    for (std::size_t i = 0; i < r->candidates.size() && i < 3; ++i) candidates.push_back(circuit_candidate_json(r->candidates[i]));
    return {{"missing", r->missing.empty() ? nlohmann::json(nullptr) : nlohmann::json(r->missing)},
            {"candidates", std::move(candidates)},
            {"strongest", r->circuit ? head_circuit_json(*r->circuit) : nlohmann::json(nullptr)}};
}

inline nlohmann::json token_copying_json(const std::optional<token_copying>& c)
{
    namespace k = scan_json_keys;
    if (!c) return nullptr;
    return {{"tokens", c->tokens},
            {"vocabulary", c->vocabulary},
            {k::top1_share, c->top1_share},
            {"top5_share", c->top5_share},
            {k::bottom10_share, c->bottom10_share},
            {"top1_interval", {c->top1_interval.first, c->top1_interval.second}},
            {"bottom10_interval", {c->bottom10_interval.first, c->bottom10_interval.second}},
            {"median_margin", c->median_margin}};
}

/// The seeds' structure measures, kept as the evidence of their searches (head_structure.hpp).
inline nlohmann::json structure_json(const head_metrics& h)
{
    const auto& s = h.structure;
    nlohmann::json e = {{"one_direction_q", s.one_direction_q},
                        {"one_direction_k", s.one_direction_k},
                        {"reading_q", reading_json(s.reading_q)},
                        {"reading_k", reading_json(s.reading_k)},
                        {"copying_score", optional_number(h.copying_score)},
                        {"centred_copying_score", optional_number(h.centred_copying_score)},
                        {"rope", nullptr},
                        {"offset_profile", nullptr}};
    if (s.rope) {
        nlohmann::json pairs = nlohmann::json::array();
        for (const auto& p : s.rope->pairs)
            pairs.push_back({{"pair", p.pair}, {"theta", p.theta}, {"energy_share", p.energy_share}, {"phase", p.phase},
                             {"preferred_offset", p.preferred_offset}, {"slow", p.slow}});
        e["rope"] = {{"angles", s.rope->angles},          {"angles_modelled", s.rope->angles_modelled}, {"context", s.rope->context},
                     {"slow_share", s.rope->slow_share},  {"slow_baseline", s.rope->slow_baseline},     {"unrotated_share", s.rope->unrotated_share},
                     {"pairs", std::move(pairs)}};
    }
    if (s.profile) {
        const auto& p = *s.profile;
        nlohmann::json certificate = nullptr;
        if (p.certificate) {
            const auto& c = *p.certificate;
            certificate = {{"status", status_name(c.status)},
                           {"statement", "over every offset 0.." + std::to_string(c.last) + " except " + std::to_string(c.offset) +
                                             " the score of the constant the head reads is below its value at offset " + std::to_string(c.offset)},
                           {"margin", {c.margin_lower, c.margin_upper}},
                           {"undecided_offsets", c.undecided_offsets}};
        }
        e["offset_profile"] = {{"best_offset", p.best},
                               {"runner_up_fraction", p.runner_up_fraction},
                               {"score_at_best", p.score[p.best]},
                               {"score", p.score.size() <= 65 ? nlohmann::json(p.score) : nlohmann::json(std::vector<double>(p.score.begin(), p.score.begin() + 65))},
                               {"certificate", std::move(certificate)}};
    }
    return e;
}

inline nlohmann::json head_json(const head_metrics& h)
{
    namespace k = scan_json_keys;
    std::string driver = h.qk.driver == h.ov.driver ? h.qk.driver : "qk: " + h.qk.driver + "; ov: " + h.ov.driver;
    return {{k::layer, h.layer},
            {k::head, h.head},
            {"kv_head", h.kv_head},
            {"rank_q", h.q.rank},
            {"rank_k", h.k.rank},
            {k::cond_q, optional_number(h.q.condition)},
            {k::cond_k, optional_number(h.k.condition)},
            {"qk_singular_values", values(h.qk.singular_values)},
            {"ov_singular_values", values(h.ov.singular_values)},
            {"copying_score", optional_number(h.copying_score)},
            {k::ov_identity_distance, h.ov_identity_distance},
            {k::ov_identity_floor, h.ov_identity_floor},
            {k::absorbed_form_gap, optional_number(h.absorbed_form_gap)},
            {k::reconstruction_residual, {{k::qk, h.qk.residual}, {"ov", h.ov.residual}}},
            {"svd_driver", driver},
            {k::labels, h.labels.labels},
            {k::certified, h.labels.certified},
            {"certified_parts", certified_parts_json(h.labels)},
            {"undecided", undecided_json(h.labels)},
            {"seed_searches", h.labels.seed_searches},
            {k::mean_field, mean_field_json(h.mean_field)},
            {k::token_copying, token_copying_json(h.per_token_copying)},
            {"circuits", circuits_json(h.circuits)},
            {"evidence", structure_json(h)}};
}

/// The weights a scan read to fingerprint the model (model/weight_fingerprint.hpp).
inline nlohmann::json fingerprint_json(const model::weight_fingerprint& f)
{
    return {{"layers", f.layers}, {"rows", f.rows}, {"columns", f.columns}, {"values", f.values}};
}

inline nlohmann::json thresholds_json(const scan_result& r)
{
    const auto& t = r.thresholds;
    nlohmann::json rules = nlohmann::json::array();
    for (const auto& row : labels::label_rows())
        rules.push_back({{"label", row.name}, {"rule", row.rule}, {"reason", row.reason}, {"confirmed_by", labels::confirmed_by_text(row)}});
    return {{"offset_mass", t.offset_mass},       {"sink", t.sink},
            {"semantic_swing", t.semantic_swing}, {"copy_top1", t.copy_top1},
            {"copying", t.copying},               {"suppression_bottom10", t.suppression_bottom10},
            {"window", t.window},                 {"queries", t.queries}, {"content_tokens", t.content_tokens},
            {"copy_tokens", t.copy_tokens},       {"content_deviations", t.content_deviations},
            {"circuit_tokens", t.circuit_tokens}, {"circuit_share", t.circuit_share},
            {"one_direction", t.one_direction},
            {"constant_reading", t.constant_reading}, {"slow_share", t.slow_share},
            {"context", t.context},               {"tokens_sampled", r.tokens_sampled},
            {"vocabulary", r.vocabulary},         {"rules", std::move(rules)}};
}

} // namespace detail

namespace detail {

inline nlohmann::json facts_json(const std::vector<scan_fact>& facts)
{
    namespace k = scan_json_keys;
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& f : facts) rows.push_back({{k::claim, f.claim}, {k::statement, f.statement}, {k::passed, f.passed}, {k::detail, f.detail}});
    return rows;
}

/// Per head (in `heads`' order), its three strongest targets under each score.
inline nlohmann::json strongest_edges_json(const std::vector<std::pair<std::size_t, std::size_t>>& heads, const std::vector<composition_score>& composition)
{
    namespace k = scan_json_keys;
    nlohmann::json edges = nlohmann::json::array();
    constexpr std::size_t per_source = 3;
    for (const auto& [layer, head] : heads) {
        nlohmann::json e = {{k::source, {layer, head}}};
        for (const auto& [name, score] : {std::pair{k::q_composition, &composition_score::q}, {k::k_composition, &composition_score::k}, {k::v_composition, &composition_score::v}}) {
            nlohmann::json targets = nlohmann::json::array();
            for (const auto* p : strongest_targets(composition, layer, head, score, per_source))
                targets.push_back({{k::target, {p->target_layer, p->target_head}}, {"score", (*p).*score}});
            e[name] = std::move(targets);
        }
        edges.push_back(std::move(e));
    }
    return edges;
}

} // namespace detail

namespace detail {
/// The circuits the heads are labelled by, in the heads' order: the document's list of circuits.
inline nlohmann::json circuits_list_json(const std::vector<head_metrics>& heads)
{
    nlohmann::json list = nlohmann::json::array();
    for (const auto& h : heads) {
        if (!h.circuits || !h.circuits->circuit) continue;
        const auto& c = *h.circuits->circuit;
        if (std::find(h.labels.labels.begin(), h.labels.labels.end(), c.label) == h.labels.labels.end()) continue;  // a positional head's circuit is not its label
        nlohmann::json entry = head_circuit_json(c);
        entry["head"] = {h.layer, h.head};
        list.push_back(std::move(entry));
    }
    return list;
}

/// One composition pair of the document.
inline nlohmann::json pair_json(const composition_score& p)
{
    namespace k = scan_json_keys;
    return {{k::source, {p.source_layer, p.source_head}},
            {k::target, {p.target_layer, p.target_head}},
            {k::q_composition, p.q},
            {k::k_composition, p.k},
            {k::v_composition, p.v},
            {"t3_singular_values", values(p.t3_singular_values())}};
}

/// Where write_scan_document puts the pairs in the rest of the document's text.
inline constexpr const char* pairs_go_here = "qkov: the composition pairs are written here";

/// The whole document, its composition pairs left out (an array) or a marker in their place.
inline nlohmann::json scan_document(const scan_result& r, const std::vector<scan_fact>& facts, nlohmann::json model, std::size_t first_layer,
                                    std::size_t last_layer, bool pairs)
{
    namespace k = scan_json_keys;
    nlohmann::json j;
    j[k::schema] = k::schema_name;
    j[k::model] = std::move(model);
    j[k::scanned_layers] = {first_layer, last_layer};
    auto& conventions = j[k::conventions] = nlohmann::json::object();
    for (const auto& [name, text] : scan_conventions()) conventions[name] = text;
    conventions["labels"] = conventions["labels"].get<std::string>() + "; evidence.offset_profile.score lists offsets 0..64 at most";
    j[k::thresholds] = thresholds_json(r);
    j[k::input] = r.input;
    if (r.fingerprint) j[k::model_fingerprint] = fingerprint_json(*r.fingerprint);
    j[k::proxy] = {{"input", r.proxy_description}, {"missing", r.proxy_missing.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.proxy_missing)},
                   {"copy_tokens", r.copy_tokens}};
    nlohmann::json heads = nlohmann::json::array();
    std::vector<std::pair<std::size_t, std::size_t>> ids;
    for (const auto& h : r.heads) heads.push_back(head_json(h)), ids.emplace_back(h.layer, h.head);
    j[k::heads] = std::move(heads);
    if (pairs) {
        nlohmann::json composition = nlohmann::json::array();
        for (const auto& p : r.composition) composition.push_back(pair_json(p));
        j[k::composition] = std::move(composition);
    } else {
        j[k::composition] = pairs_go_here;
    }
    j[k::facts] = facts_json(facts);
    j[k::strongest_edges] = strongest_edges_json(ids, r.composition);
    j[k::circuits] = circuits_list_json(r.heads);
    return j;
}
} // namespace detail

/// The whole document. `model` is the model's summary (as `qkov inspect --json` writes it);
/// first_layer..last_layer are the layers whose heads, and the pairs whose later head, it holds.
inline nlohmann::json scan_document(const scan_result& r, const std::vector<scan_fact>& facts, nlohmann::json model, std::size_t first_layer,
                                    std::size_t last_layer)
{
    return detail::scan_document(r, facts, std::move(model), first_layer, last_layer, true);
}

/// The document as a file holds it: `summary` (the model's, model_summary.hpp) with the model's
/// `path` added, one space of indent, a final newline, handed to put(piece) in pieces. The pairs
/// are formatted one at a time: at Llama-3-8B's 32 layers they are 523,776 entries and most of
/// the document's 2.4 GB, and one JSON tree of them would take several times that. The pieces are
/// dump(1) of scan_document's tree, byte for byte (nlohmann's layout: an array element at depth 2
/// indented by two spaces, each of its lines two more than alone).
template <class Put>
void write_scan_document(Put&& put, const scan_result& r, const std::vector<scan_fact>& facts, nlohmann::json summary, const std::string& path,
                         std::size_t first_layer, std::size_t last_layer)
{
    summary["path"] = path;
    const std::string rest = detail::scan_document(r, facts, std::move(summary), first_layer, last_layer, false).dump(1) + "\n";
    const std::string marker = nlohmann::json(detail::pairs_go_here).dump();
    const std::size_t at = rest.find(marker);
    if (at == std::string::npos || rest.find(marker, at + 1) != std::string::npos) throw std::logic_error("qkov: the pairs' place in the scan document");
    put(std::string_view(rest).substr(0, at));
    if (r.composition.empty()) {
        put("[]");
    } else {
        std::string entry;
        for (std::size_t i = 0; i < r.composition.size(); ++i) {
            entry = i == 0 ? "[\n  " : ",\n  ";
            for (const char c : detail::pair_json(r.composition[i]).dump(1)) c == '\n' ? entry += "\n  " : entry += c;
            put(entry);
        }
        put("\n ]");
    }
    put(std::string_view(rest).substr(at + marker.size()));
}

/// The document's text as one string (write_scan_document's pieces joined): what the Python
/// module's Scan.to_json() returns, the bytes `qkov scan --json` writes.
inline std::string scan_document_text(const scan_result& r, const std::vector<scan_fact>& facts, nlohmann::json summary, const std::string& path,
                                      std::size_t first_layer, std::size_t last_layer)
{
    std::string text;
    write_scan_document([&text](std::string_view piece) { text += piece; }, r, facts, std::move(summary), path, first_layer, last_layer);
    return text;
}

} // namespace qkov::scan
