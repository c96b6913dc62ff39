// The scan's JSON document (schema docs/schemas/scan.schema.json), written here and only
// here: `qkov scan --json` and every other writer call scan_document, and `qkov detect --scan`
// reads the labels back through scan_json_keys, so each key is spelled once. The composition
// pairs' numbers are not in it: they are tensors in a file beside it (composition_tensors.hpp),
// which the document names with its SHA-256.
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

#include "qkov/io/document_schemas.hpp"
#include "qkov/labels/vocabulary.hpp"
#include "qkov/scan/composition_edges.hpp"
#include "qkov/scan/composition_tensors.hpp"
#include "qkov/scan/scan_json_keys.hpp"
#include "qkov/scan/scan_conventions.hpp"
#include "qkov/scan/scan_facts.hpp"
#include "qkov/scan/scan_result.hpp"
#include "qkov/scan/scan_settings_json.hpp"

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
            {"median_margin", c->median_margin},
            {"precision", precision_name(c->precision)},
            {"recomputed_in_float64", c->recomputed}};
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


/// The document's thresholds: the caller's, what the scan sampled, and every label's rule.
inline nlohmann::json thresholds_json(const scan_result& r)
{
    nlohmann::json rules = nlohmann::json::array();
    for (const auto& row : labels::label_rows())
        rules.push_back({{"label", row.name}, {"rule", row.rule}, {"reason", row.reason}, {"confirmed_by", labels::confirmed_by_text(row)}});
    nlohmann::json j = label_thresholds_json(r.thresholds);
    j["tokens_sampled"] = r.tokens_sampled, j["vocabulary"] = r.vocabulary, j["rules"] = std::move(rules);
    j["precision"] = precision_name(r.precision);
    return j;
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

/// One source head's entry of the strongest edges: its three strongest targets under each score,
/// among `pairs` (its pairs, or more, in the scan's order: ties go the same way for a whole scan
/// and for a merge that hands over each head's own pairs).
inline nlohmann::json strongest_edges_entry(std::size_t layer, std::size_t head, const std::vector<composition_score>& pairs)
{
    namespace k = scan_json_keys;
    constexpr std::size_t per_source = 3;
    nlohmann::json e = {{k::source, {layer, head}}};
    for (const auto& [name, score] : {std::pair{k::q_composition, &composition_score::q}, {k::k_composition, &composition_score::k}, {k::v_composition, &composition_score::v}}) {
        nlohmann::json targets = nlohmann::json::array();
        for (const auto* p : strongest_targets(pairs, layer, head, score, per_source))
            targets.push_back({{k::target, {p->target_layer, p->target_head}}, {"score", (*p).*score}});
        e[name] = std::move(targets);
    }
    return e;
}

/// Per head (in `heads`' order), its three strongest targets under each score.
inline nlohmann::json strongest_edges_json(const std::vector<std::pair<std::size_t, std::size_t>>& heads, const std::vector<composition_score>& composition)
{
    nlohmann::json edges = nlohmann::json::array();
    for (const auto& [layer, head] : heads) edges.push_back(strongest_edges_entry(layer, head, composition));
    return edges;
}

/// The document's `composition`: its tensors' file, and for the scores in it the largest bound
/// against the float64 scan's and the pairs recomputed in float64 (0 and 0 in float64).
inline nlohmann::json composition_json(const composition_tensors_ref& tensors, std::size_t recomputed)
{
    namespace k = scan_json_keys;
    return {{k::tensors_file, tensors.file}, {k::tensors_sha256, tensors.sha256}, {k::pair_count, tensors.pairs},
            {k::largest_bound, tensors.largest_bound}, {k::recomputed_in_float64, recomputed}};
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

} // namespace detail

/// The whole document, its pairs' tensors named by `tensors`. `model` is the model's summary (as
/// `qkov inspect --json` writes it); first_layer..last_layer are the layers whose heads, and the
/// pairs whose later head, it holds.
inline nlohmann::json scan_document(const scan_result& r, const std::vector<scan_fact>& facts, nlohmann::json model, std::size_t first_layer,
                                    std::size_t last_layer, const composition_tensors_ref& tensors)
{
    namespace k = scan_json_keys;
    nlohmann::json j;
    j[k::schema] = schemas::scan;
    j[k::model] = std::move(model);
    j[k::scanned_layers] = {first_layer, last_layer};
    auto& conventions = j[k::conventions] = nlohmann::json::object();
    for (const auto& [name, text] : scan_conventions()) conventions[name] = text;
    conventions["labels"] = conventions["labels"].get<std::string>() + "; evidence.offset_profile.score lists offsets 0..64 at most";
    j[k::thresholds] = detail::thresholds_json(r);
    j[k::input] = r.input;
    if (r.fingerprint) j[k::model_fingerprint] = detail::fingerprint_json(*r.fingerprint);
    j[k::proxy] = {{"input", r.proxy_description}, {"missing", r.proxy_missing.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.proxy_missing)},
                   {"copy_tokens", r.copy_tokens}};
    nlohmann::json heads = nlohmann::json::array();
    std::vector<std::pair<std::size_t, std::size_t>> ids;
    for (const auto& h : r.heads) heads.push_back(detail::head_json(h)), ids.emplace_back(h.layer, h.head);
    j[k::heads] = std::move(heads);
    j[k::composition] = detail::composition_json(tensors, r.composition_recomputed);
    j[k::facts] = detail::facts_json(facts);
    j[k::strongest_edges] = detail::strongest_edges_json(ids, r.composition);
    j[k::circuits] = detail::circuits_list_json(r.heads);
    return j;
}

namespace detail {
/// The composition tensors' shape from the model's summary (model_summary.hpp): its layers, heads
/// per layer and head dimension.
inline composition_tensors_shape tensors_shape(const nlohmann::json& summary)
{
    namespace k = scan_json_keys;
    return {summary.at(k::model_layers).get<std::size_t>(), summary.at(k::model_heads).get<std::size_t>(), summary.at(k::model_head_dim).get<std::size_t>()};
}
} // namespace detail

/// The document as a file holds it: `summary` (the model's, model_summary.hpp) with the model's
/// `path` added, one space of indent, a final newline; first_layer..last_layer are the layers whose
/// heads, and the pairs whose later head, it holds; `tensors` names the pairs' file.
inline std::string scan_document_text(const scan_result& r, const std::vector<scan_fact>& facts, nlohmann::json summary, const std::string& path,
                                      std::size_t first_layer, std::size_t last_layer, const composition_tensors_ref& tensors)
{
    summary[scan_json_keys::model_path] = path;
    return scan_document(r, facts, std::move(summary), first_layer, last_layer, tensors).dump(1) + "\n";
}

/// What the pairs' file named `tensors_file` holds, made byte by byte to know its SHA-256 and not
/// written: the reference the document gives it (its bytes do not depend on its name, so a caller
/// may keep the reference and rename it: the Python module's Scan.to_json()).
inline composition_tensors_ref composition_tensors_of(const scan_result& r, const nlohmann::json& summary, const std::string& tensors_file)
{
    return put_composition_tensors([](std::string_view) {}, r.composition, detail::tensors_shape(summary), tensors_file);
}

/// Writes the document at `json` and its pairs' tensors beside it (composition_tensors_name), each
/// whole or not at all, the tensors first: a document never names a file not yet written.
inline void write_scan_files(const std::filesystem::path& json, const scan_result& r, const std::vector<scan_fact>& facts, nlohmann::json summary,
                             const std::string& path, std::size_t first_layer, std::size_t last_layer)
{
    const auto tensors = write_composition_tensors(json.parent_path() / composition_tensors_name(json), r.composition, detail::tensors_shape(summary));
    io::write_file_atomically(json, scan_document_text(r, facts, std::move(summary), path, first_layer, last_layer, tensors));
}

} // namespace qkov::scan
