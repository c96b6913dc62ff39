// The scan's labels judged by behaviour, on trained models: the small transformers of
// ../shared/trained_models and stories260K. (At the end: stories260K's scan is the same whatever
// the thread count and merges from shards, the checks unit.scan makes on the fixtures under the
// sanitizers, here in the release build, where they take a tenth of the time.) The previous-token behaviour of the trained models is
// the independent NumPy forward pass's (ground_truth.json, TransformerLens' score, its borderline
// heads left out as its README asks); sink and copy, which ground_truth.json does not measure on
// these sequences, and everything on stories260K, come from qkov detect's forward pass
// (forward_tests.cpp and detect_tests.cpp check that pass against references and ground_truth.json).
// Nothing is tuned to these models: the thresholds are label_thresholds' and detect's defaults.
//
// What must hold (the labels' promise), per label, away from the threshold band:
// - recall: >= 90 % of the heads that show previous-token, sink, copy, positional or offset
//   behaviour get the matching label;
// - precision: no head carries one of those labels without the behaviour, certified or not;
// - no head whose attention is positional (two offsets hold >= 1/2 of it) is labelled semantic;
// - across the four models every one of those behaviours is shown by some head, so neither check
//   holds for want of a head to judge.
#define BOOST_TEST_MODULE scan_trained
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/detect/head_detection.hpp"
#include "qkov/detect/scan_labels.hpp"
#include "qkov/detect/scan_labels_of_result.hpp"
#include "qkov/forward/forward_pass.hpp"
#include "qkov/model/model_summary.hpp"
#include "qkov/numeric/uniform_below.hpp"
#include "qkov/scan/scan_json.hpp"
#include "qkov/scan/scan_model.hpp"
#include "qkov/scan/seed_head_model.hpp"
#include "model_runs.hpp"
#include "scan_invariances.hpp"
#include "shared_dir.hpp"

using namespace qkov;

namespace {

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

/// One behaviour against its label over a model's heads.
struct agreement {
    std::size_t shown = 0, labelled = 0, certified_contradicted = 0;
    std::vector<std::string> missed, contradicted;
};

/// Counts, for one behaviour, the heads that show it and get the label, and the certified labels the
/// behaviour contradicts.
void judge(agreement& a, const std::string& head, const scan::head_metrics& h, const std::string& label, bool shows)
{
    const bool labelled = has(h.labels.labels, label);
    if (shows) {
        ++a.shown;
        if (labelled) ++a.labelled;
        else a.missed.push_back(head);
    } else if (labelled) {
        a.contradicted.push_back(head);
        if (has(h.labels.certified, label)) ++a.certified_contradicted;
    }
}

std::string list(const std::vector<std::string>& v)
{
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
    return s.empty() ? "none" : s;
}

void require_agreement(const std::string& behaviour, const agreement& a)
{
    BOOST_TEST_MESSAGE(behaviour << ": " << a.labelled << " of " << a.shown << " heads labelled; missed " << list(a.missed) << "; labelled without the behaviour "
                                 << list(a.contradicted));
    BOOST_TEST(10 * a.labelled >= 9 * a.shown, behaviour << ": " << a.labelled << " of " << a.shown << " labelled, missed " << list(a.missed));
    BOOST_TEST(a.contradicted.empty(), behaviour << ": labelled without the behaviour on " << list(a.contradicted));
    BOOST_TEST(a.certified_contradicted == 0u, behaviour << ": certified labels contradicted on " << list(a.contradicted));
}


const scan::head_metrics& head_of(const scan::scan_result& r, std::size_t layer, std::size_t head)
{
    for (const auto& h : r.heads)
        if (h.layer == layer && h.head == head) return h;
    throw std::logic_error("no head " + std::to_string(layer) + "." + std::to_string(head));
}

/// A measured behaviour near its threshold, the band ground_truth.json's README calls borderline
/// (a score between 0.8 and 1.2 times its threshold: "a test should not insist either way on
/// those"); the test neither counts nor excuses such a head, and prints it.
bool borderline(const detect::detection_result& r, const detect::head_behaviour& b, const std::string& behaviour)
{
    for (const auto& rule : detect::behaviour_rules(r.length, r.behaviour_fraction))
        if (rule.name == behaviour) {
            const auto v = rule.value(b);
            return v && *v > 0.8 * rule.threshold && *v < 1.2 * rule.threshold;
        }
    throw std::logic_error("no behaviour " + behaviour);
}

/// qkov detect's behaviours of every head, on its default sequences.
detect::detection_result behaviour_of(const model::attention_model& m)
{
    const forward::decoder<double> pass(m);
    return detect::detect_heads(pass, detect::detection_options{});
}

/// `count` sequences of `length` seeded random token ids below the vocabulary, BOS left out: what a
/// user's text gives --calibrate, with nothing of the detectors' repeats in it.
std::vector<std::vector<std::size_t>> random_text(const model::attention_model& m, std::size_t count, std::size_t length)
{
    std::mt19937_64 rng(3);
    std::vector<std::vector<std::size_t>> text(count);
    for (auto& sequence : text)
        while (sequence.size() < length)
            if (const std::size_t id = numeric::uniform_below(rng, m.config().vocab_size); id != m.config().bos_token_id) sequence.push_back(id);
    return text;
}

void judge_trained_model(const std::string& name, bool calibrated = false)
{
    const auto dir = test::shared_dir_or_skip("trained_models/" + name);
    if (dir.empty()) return;
    std::ifstream in(dir / "ground_truth.json");
    const auto truth = nlohmann::json::parse(in);
    const auto model = qkov::runs::open_model(dir.string());
    scan::scan_options options;
    if (calibrated) options.calibration = random_text(model, 20, 50), options.calibration_name = "(20 random sequences)";
    const auto r = qkov::runs::scan_model(model, options);
    const auto behaviour = behaviour_of(model);
    const double previous_token = truth["thresholds"]["previous_token"].get<double>();
    const auto borderline_previous = truth["borderline"].value("previous_token", std::vector<std::string>{});
    agreement previous, sink, copy, positional;
    std::map<std::string, agreement> offsets;  // offset_k, k = 0, 2 .. W
    std::vector<std::string> semantic_on_positional;
    for (const auto& [id, g] : truth["heads"].items()) {
        const std::size_t layer = g["layer"], head = g["head"];
        const auto& h = head_of(r, layer, head);
        const auto* b = behaviour.find(layer, head);
        BOOST_TEST_REQUIRE(b != nullptr);
        if (!has(borderline_previous, id)) judge(previous, id, h, "previous_token", g["tl_scores"]["previous_token"]["mean"].get<double>() >= previous_token);
        std::vector<std::pair<std::string, agreement*>> by_behaviour{{"sink", &sink}, {"copy", &copy}, {"positional", &positional}};
        for (std::size_t k = 0; k <= forward::largest_offset; ++k)
            if (k != 1) by_behaviour.emplace_back("offset_" + std::to_string(k), &offsets["offset_" + std::to_string(k)]);
        for (const auto& [label, counts] : by_behaviour) {
            if (borderline(behaviour, *b, label)) BOOST_TEST_MESSAGE(name << " " << id << ": " << label << " borderline, not judged");
            else judge(*counts, id, h, label, b->shows(label));
        }
        auto offsets = g["attention_by_offset_0_to_8"].get<std::vector<double>>();
        std::sort(offsets.rbegin(), offsets.rend());
        if ((offsets[0] + offsets[1] >= 0.5 || b->shows("positional")) && has(h.labels.labels, "semantic")) semantic_on_positional.push_back(id);
    }
    BOOST_TEST_CONTEXT(name << (calibrated ? ", calibrated on random text" : ""))
    {
        require_agreement("previous_token", previous);
        require_agreement("sink", sink);
        require_agreement("copy", copy);
        require_agreement("positional", positional);
        for (const auto& [label, a] : offsets) require_agreement(label, a);
        BOOST_TEST(semantic_on_positional.empty(), "semantic on positional heads: " << list(semantic_on_positional));
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(llama_rope_induction) { judge_trained_model("llama_rope_induction"); }
BOOST_AUTO_TEST_CASE(neox_partial_rotary) { judge_trained_model("neox_partial_rotary"); }
BOOST_AUTO_TEST_CASE(gpt2_learned_positions) { judge_trained_model("gpt2_learned_positions"); }
BOOST_AUTO_TEST_CASE(llama_nope_layer) { judge_trained_model("llama_nope_layer"); }

// Neither check above holds for want of a head: across the four models each judged behaviour is
// shown by some head.
BOOST_AUTO_TEST_CASE(every_judged_behaviour_is_shown_by_some_trained_head)
{
    std::map<std::string, std::size_t> shown;
    for (const char* name : {"llama_rope_induction", "neox_partial_rotary", "gpt2_learned_positions", "llama_nope_layer"}) {
        const auto dir = test::shared_dir_or_skip(std::string("trained_models/") + name);
        if (dir.empty()) return;
        for (const auto& b : behaviour_of(qkov::runs::open_model(dir.string())).per_head)
            for (const auto& behaviour : b.behaviours) ++shown[behaviour];
    }
    for (const char* behaviour : {"previous_token", "sink", "copy", "positional", "offset_0", "offset_3", "induction", "repeat_shift_2"})
        BOOST_TEST(shown[behaviour] > 0u, behaviour << " is shown by no trained head: its agreement checks judged nothing");
}

// The same promise when mu_l and the content come from text (--calibrate): here seeded random ids.
BOOST_AUTO_TEST_CASE(llama_rope_induction_calibrated) { judge_trained_model("llama_rope_induction", true); }
BOOST_AUTO_TEST_CASE(gpt2_learned_positions_calibrated) { judge_trained_model("gpt2_learned_positions", true); }

/// A NoPE layer's kernel is flat in the offset: its heads get no offset label and their swing is 0.
BOOST_AUTO_TEST_CASE(a_nope_layer_gets_no_offset_label)
{
    const auto dir = test::shared_dir_or_skip("trained_models/llama_nope_layer");
    if (dir.empty()) return;
    const auto model = qkov::runs::open_model(dir.string());
    BOOST_TEST_REQUIRE(!model.config().rope_at(1).has_value());
    const auto r = qkov::runs::scan_model(model);
    for (const auto& h : r.heads) {
        if (h.layer != 1) continue;
        BOOST_TEST_REQUIRE(h.mean_field.has_value());
        BOOST_TEST(h.mean_field->positions == "nope");
        BOOST_TEST(h.mean_field->swing == 0.0);
        for (const auto& l : h.labels.labels) BOOST_TEST((l != "previous_token" && l != "positional" && !l.starts_with("offset_")), "1." << h.head << " " << l);
    }
}

/// stories260K: the heads qkov's own forward pass shows as previous-token heads are labelled so
/// from the weights, and no previous_token label is contradicted by the behaviour. Eight heads have
/// a mean score at or above the threshold on the default 10 sequences; 7 show it beyond their 95 %
/// interval and 2.2 (0.515 +- 0.053 against 0.495) is undecided. All 8 must be labelled.
BOOST_AUTO_TEST_CASE(stories260K_previous_token_heads_are_labelled)
{
    const auto dir = test::shared_dir_or_skip("real_models/llama2c-stories260K/hf");
    if (dir.empty()) return;
    const auto model = qkov::runs::open_model(dir.string());
    const auto r = qkov::runs::scan_model(model);
    const auto behaviour = behaviour_of(model);
    const auto* rule = behaviour.rule("previous_token");
    BOOST_TEST_REQUIRE(rule != nullptr);
    agreement previous;
    std::size_t reaching = 0, shown = 0, undecided = 0, labelled = 0;
    for (const auto& b : behaviour.per_head) {
        const std::string id = std::to_string(b.layer) + "." + std::to_string(b.head);
        const bool reaches = *rule->value(b) >= rule->threshold, has_label = has(head_of(r, b.layer, b.head).labels.labels, "previous_token");
        reaching += reaches ? 1 : 0;
        shown += b.shows("previous_token") ? 1 : 0;
        undecided += b.undecided_on("previous_token") ? 1 : 0;
        labelled += reaches && has_label ? 1 : 0;
        if (reaches && !has_label) previous.missed.push_back(id);
        if (!reaches && has_label) previous.contradicted.push_back(id);
    }
    BOOST_TEST_MESSAGE("stories260K previous_token: " << labelled << " of the " << reaching << " heads reaching the threshold labelled (" << shown
                                                      << " shown, " << undecided << " undecided)");
    BOOST_TEST(reaching == 8u);
    BOOST_TEST(shown >= 7u);
    BOOST_TEST(labelled == reaching, "previous-token heads without the label: " << list(previous.missed));
    BOOST_TEST(previous.contradicted.empty(), "labelled previous_token below the threshold: " << list(previous.contradicted));
    for (const auto& h : r.heads)
        for (const auto& c : h.labels.certified) {
            const auto* b = behaviour.find(h.layer, h.head);
            BOOST_TEST_REQUIRE(b != nullptr);
            if (c == "previous_token") BOOST_TEST((b->shows(c) || b->undecided_on(c)), h.layer << "." << h.head << " certified previous_token, absent");
        }
}

/// The scan's document read back by the detection's reader (detect/scan_labels.hpp) gives every
/// head's labels, certified labels and predictions as the scan computed them: the writer and the
/// reader share their keys (scan/scan_json_keys.hpp). The seed-head model needs no shared files.
BOOST_AUTO_TEST_CASE(the_scan_document_reads_back_as_written)
{
    const auto dir = scan::write_seed_head_model(std::filesystem::temp_directory_path() / "qkov-scan-roundtrip");
    const auto model = qkov::runs::open_model(dir.string());
    const auto r = qkov::runs::scan_model(model);
    nlohmann::json summary = {{"family", "llama"}, {"architecture", model.config().architecture}, {"layers", model.config().layers},
                              {"heads", model.config().heads}, {"kv_heads", model.config().kv_heads}, {"hidden_size", model.config().hidden_size},
                              {"head_dim", model.config().head_dim}, {"vocab_size", model.config().vocab_size}, {"path", dir.string()}};
    const auto text = scan::scan_document(r, {}, summary, 0, model.config().layers - 1, {}).dump(1);
    std::filesystem::remove_all(dir);
    const auto back = detect::parse_scan_labels(nlohmann::json::parse(text), "round trip");
    BOOST_TEST_REQUIRE(back.heads.size() == r.heads.size());
    std::size_t predicted = 0;
    for (std::size_t i = 0; i < r.heads.size(); ++i) {
        const auto& h = r.heads[i];
        const auto& w = back.heads[i];
        BOOST_TEST(w.layer == h.layer);
        BOOST_TEST(w.head == h.head);
        BOOST_TEST(w.labels == h.labels.labels);
        BOOST_TEST(w.certified == h.labels.certified);
        BOOST_TEST(w.predicted.bos.has_value() == h.mean_field.has_value());
        if (h.mean_field) {
            ++predicted;
            BOOST_TEST(*w.predicted.bos == h.mean_field->bos);
            BOOST_TEST_REQUIRE(w.predicted.attention_by_offset.has_value());
            for (std::size_t k = 0; k < h.mean_field->by_offset.size(); ++k) BOOST_TEST((*w.predicted.attention_by_offset)[k] == h.mean_field->by_offset[k]);
        }
    }
    BOOST_TEST(predicted >= 2u);  // layer 0 always: its input is the embedding, whatever else the file lacks
}

namespace {

/// Every field the comparison reads, equal in the two readings of one scan.
void require_same_labels(const detect::scan_labels& a, const detect::scan_labels& b)
{
    BOOST_TEST(a.model.family == b.model.family);
    BOOST_TEST(a.model.architecture == b.model.architecture);
    BOOST_TEST(a.model.layers == b.model.layers);
    BOOST_TEST(a.model.heads == b.model.heads);
    BOOST_TEST(a.model.kv_heads == b.model.kv_heads);
    BOOST_TEST(a.model.hidden_size == b.model.hidden_size);
    BOOST_TEST(a.model.head_dim == b.model.head_dim);
    BOOST_TEST(a.model.vocab_size == b.model.vocab_size);
    BOOST_TEST(a.input == b.input);
    BOOST_TEST_REQUIRE(a.fingerprint.has_value() == b.fingerprint.has_value());
    if (a.fingerprint) {
        BOOST_TEST(a.fingerprint->layers == b.fingerprint->layers);
        BOOST_TEST(a.fingerprint->values == b.fingerprint->values);
    }
    BOOST_TEST_REQUIRE(a.heads.size() == b.heads.size());
    for (std::size_t i = 0; i < a.heads.size(); ++i) {
        const auto &x = a.heads[i], &y = b.heads[i];
        BOOST_TEST(x.layer == y.layer);
        BOOST_TEST(x.head == y.head);
        BOOST_TEST(x.labels == y.labels);
        BOOST_TEST(x.certified == y.certified);
        BOOST_TEST((x.predicted.attention_by_offset == y.predicted.attention_by_offset));
        BOOST_TEST((x.predicted.bos == y.predicted.bos));
        BOOST_TEST((x.predicted.previous_token == y.predicted.previous_token));
        BOOST_TEST((x.predicted.top1_share == y.predicted.top1_share));
        BOOST_TEST((x.predicted.bottom10_share == y.predicted.bottom10_share));
    }
}

} // namespace

/// A scan in memory (the Python module's qkov.Scan passed to detect) gives the comparison what its
/// document gives when written and read back, without the document's text: on the seed-head model
/// (certified labels; no shared files needed) and a trained model (per-token copying shares).
BOOST_AUTO_TEST_CASE(a_scan_in_memory_reads_as_its_document)
{
    const auto seed_dir = scan::write_seed_head_model(std::filesystem::temp_directory_path() / "qkov-scan-in-memory");
    std::vector<std::filesystem::path> models{seed_dir};
    if (const auto trained = qkov::test::shared_dir_or_skip("trained_models/llama_rope_induction"); !trained.empty()) models.push_back(trained);
    std::size_t certified = 0, copying = 0, fingerprinted = 0;
    for (const auto& dir : models) {
        BOOST_TEST_CONTEXT(dir.string())
        {
            const auto model = qkov::runs::open_model(dir);
            const auto r = qkov::runs::scan_model(model);
            const auto summary = model::model_summary(model);
            const auto text = scan::scan_document_text(r, {}, summary, dir.string(), 0, model.config().layers - 1, scan::composition_tensors_of(r, summary, "scan.tensors.safetensors"));
            const auto in_memory = detect::scan_labels_of(r, summary, "in memory");
            require_same_labels(in_memory, detect::parse_scan_labels(nlohmann::json::parse(text), "written"));
            for (const auto& h : in_memory.heads) certified += h.certified.size(), copying += h.predicted.top1_share.has_value();
            fingerprinted += in_memory.fingerprint.has_value();
        }
    }
    std::filesystem::remove_all(seed_dir);
    BOOST_TEST(certified > 0u);  // the comparison's richest fields are there to compare
    BOOST_TEST(fingerprinted > 0u);
    if (models.size() > 1) BOOST_TEST(copying > 0u);
}

namespace {

/// "layer.head" of a partner.
std::string partner_name(const scan::circuit_partner& p) { return std::to_string(p.layer) + "." + std::to_string(p.head); }

/// Whether a side's partners name one of `heads` ("layer.head").
bool read_through(const scan::circuit_side& s, const std::vector<std::string>& heads)
{
    for (const auto& p : s.partners)
        if (has(heads, partner_name(p))) return true;
    return false;
}

/// The heads of a ground truth whose attention by offset peaks at offset k with at least half of it.
std::vector<std::string> offset_heads(const nlohmann::json& truth, std::size_t k)
{
    std::vector<std::string> out;
    for (const auto& [id, g] : truth["heads"].items()) {
        const auto offsets = g["attention_by_offset_0_to_8"].get<std::vector<double>>();
        if (offsets.at(k) >= 0.5) out.push_back(id);
    }
    return out;
}

/// The circuit labels against the independent NumPy pass's ground truth (ground_truth.json): every
/// head the truth calls induction is labelled induction, every shifted-induction head
/// repeat_shift_<its shift>, every duplicate-token head duplicate_token, and no other head carries a
/// circuit label (precision and recall both, per label). Each labelled circuit reads through the
/// right earlier heads and writes the next token of the repeat.
void judge_circuits(const std::string& name)
{
    const auto dir = test::shared_dir_or_skip("trained_models/" + name);
    if (dir.empty()) return;
    std::ifstream in(dir / "ground_truth.json");
    const auto truth = nlohmann::json::parse(in);
    const auto r = qkov::runs::scan_model(qkov::runs::open_model(dir.string()));
    const auto truth_labels = truth["labels"];
    const auto previous = truth_labels["previous_token"].get<std::vector<std::string>>();
    std::map<std::string, std::string> expected;  // head -> circuit label
    for (const auto& id : truth_labels["induction"].get<std::vector<std::string>>()) expected[id] = "induction";
    for (const auto& id : truth_labels["duplicate_token"].get<std::vector<std::string>>()) expected[id] = "duplicate_token";
    for (const auto& id : truth_labels["shifted_induction"].get<std::vector<std::string>>())
        expected[id] = "repeat_shift_" + std::to_string(truth["heads"][id]["shifted_induction_shift"].get<int>());
    BOOST_TEST_REQUIRE(!expected.empty(), name << ": the ground truth names no circuit head: the test would judge nothing");
    std::size_t judged = 0;
    for (const auto& h : r.heads) {
        const std::string id = std::to_string(h.layer) + "." + std::to_string(h.head);
        std::vector<std::string> circuit_labels;
        for (const auto& l : h.labels.labels)
            if (l == "duplicate_token" || l == "induction" || l.starts_with("repeat_shift_")) circuit_labels.push_back(l);
        const auto want = expected.find(id);
        if (want == expected.end()) {
            BOOST_TEST(circuit_labels.empty(), name << " " << id << " carries " << list(circuit_labels) << " without the behaviour");
            continue;
        }
        ++judged;
        BOOST_TEST((circuit_labels == std::vector<std::string>{want->second}), name << " " << id << ": " << list(circuit_labels) << ", the truth " << want->second);
        BOOST_TEST_REQUIRE((h.circuits && h.circuits->circuit), name << " " << id << " has no circuit");
        const auto& c = *h.circuits->circuit;
        // Induction reads the previous token on the key's side; a shift-s head's key reads s
        // further back than its query, which reads through a previous-token head.
        if (c.circuit.shift == 1) BOOST_TEST((read_through(c.circuit.key, previous) || read_through(c.circuit.query, previous)), name << " " << id);
        if (c.circuit.shift >= 2) {
            BOOST_TEST(read_through(c.circuit.query, previous), name << " " << id << ": its query does not read through a previous-token head");
            BOOST_TEST(read_through(c.circuit.key, offset_heads(truth, c.circuit.key.offset)),
                       name << " " << id << ": its key does not read through the head attending " << c.circuit.key.offset << " back");
        }
        BOOST_TEST(c.predicts_next_token, name << " " << id << " does not write the next token of the repeat");
    }
    BOOST_TEST(judged == expected.size());
}

} // namespace

BOOST_AUTO_TEST_CASE(circuits_of_llama_rope_induction) { judge_circuits("llama_rope_induction"); }
BOOST_AUTO_TEST_CASE(circuits_of_neox_partial_rotary) { judge_circuits("neox_partial_rotary"); }
BOOST_AUTO_TEST_CASE(circuits_of_gpt2_learned_positions) { judge_circuits("gpt2_learned_positions"); }
BOOST_AUTO_TEST_CASE(circuits_of_llama_nope_layer) { judge_circuits("llama_nope_layer"); }

// The search switched off (scan_options::search_circuits, as unit.certificates does) removes the
// circuits and their labels and nothing else: the mean field, its certificates and the copying are
// the same numbers.
BOOST_AUTO_TEST_CASE(a_scan_without_the_circuit_search_differs_only_in_circuits)
{
    const auto dir = test::shared_dir_or_skip("trained_models/llama_rope_induction");
    if (dir.empty()) return;
    const auto m = qkov::runs::open_model(dir.string());
    scan::scan_options off;
    off.search_circuits = false;
    const auto with = qkov::runs::scan_model(m), without = qkov::runs::scan_model(m, off);
    BOOST_TEST_REQUIRE(with.heads.size() == without.heads.size());
    std::size_t circuits = 0;
    for (std::size_t i = 0; i < with.heads.size(); ++i) {
        const auto &a = with.heads[i], &b = without.heads[i];
        const std::string id = std::to_string(a.layer) + "." + std::to_string(a.head);
        circuits += a.circuits && a.circuits->circuit ? 1 : 0;
        BOOST_TEST(!b.circuits.has_value(), id);
        BOOST_TEST_REQUIRE((a.mean_field.has_value() && b.mean_field.has_value()), id);
        BOOST_TEST(a.mean_field->by_offset == b.mean_field->by_offset, id);
        BOOST_TEST(a.mean_field->by_offset_lower == b.mean_field->by_offset_lower, id);
        BOOST_TEST(a.labels.certified == b.labels.certified, id);
        BOOST_TEST_REQUIRE((a.per_token_copying.has_value() && b.per_token_copying.has_value()), id);
        BOOST_TEST(a.per_token_copying->top1_share == b.per_token_copying->top1_share, id);
        std::vector<std::string> kept;
        for (const auto& l : a.labels.labels)
            if (l != "duplicate_token" && l != "induction" && !l.starts_with("repeat_shift_")) kept.push_back(l);
        BOOST_TEST(kept == b.labels.labels, id << ": " << list(a.labels.labels) << " against " << list(b.labels.labels));
    }
    BOOST_TEST(circuits > 0u);  // the comparison includes heads whose circuit the search found
}

namespace {

/// The largest difference of the partners' shares (the key "share") between two circuits
/// documents of the same shape, and each with those shares taken out.
double partner_share_gap(nlohmann::json& a, nlohmann::json& b)
{
    double gap = 0;
    if (a.is_object() && b.is_object()) {
        if (a.contains("share") && b.contains("share")) {
            gap = std::abs(a["share"].get<double>() - b["share"].get<double>());
            a.erase("share"), b.erase("share");
        }
        for (auto it = a.begin(); it != a.end(); ++it)
            if (b.contains(it.key())) gap = std::max(gap, partner_share_gap(*it, b[it.key()]));
    } else if (a.is_array() && b.is_array()) {
        for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) gap = std::max(gap, partner_share_gap(a[i], b[i]));
    }
    return gap;
}

} // namespace

// Float32 products (the default, product_precision.hpp) against float64 throughout, on the trained
// models and stories260K: the same labels, certificates, copying shares and per-token top-1 flags,
// and the same circuits (their labels, candidates, partners and the copying of what they write);
// the partners' shares, from float32 composition scores within their bounds, within 1e-6 (a
// validation tolerance: the scores' bounds here are at most 6e-5, their differences at most 3e-8),
// and every composition score within its bound of the float64 one. With the bounds the partners
// are decided by widened 10^12 times, the partners' float64 path decides every one of them, and
// the circuits are the float64 scan's to the bit.
BOOST_AUTO_TEST_CASE(float32_and_float64_scans_give_the_same_answers)
{
    std::size_t models = 0, recomputed = 0, composition_recomputed = 0, widened_recomputed = 0;
    for (const char* name : {"trained_models/llama_rope_induction", "trained_models/neox_partial_rotary", "trained_models/gpt2_learned_positions",
                             "trained_models/llama_nope_layer", "real_models/llama2c-stories260K/hf"}) {
        const auto dir = test::shared_dir_or_skip(name);
        if (dir.empty()) continue;
        ++models;
        const auto m = qkov::runs::open_model(dir.string());
        scan::scan_options exact;
        exact.precision = scan::product_precision::float64;
        const auto fast = qkov::runs::scan_model(m), slow = qkov::runs::scan_model(m, exact);
        BOOST_TEST(scan::detail::thresholds_json(fast)["precision"] == "float32");
        BOOST_TEST_REQUIRE(fast.heads.size() == slow.heads.size());
        for (std::size_t i = 0; i < fast.heads.size(); ++i) {
            const auto &a = fast.heads[i], &b = slow.heads[i];
            const std::string id = std::string(name) + " " + std::to_string(a.layer) + "." + std::to_string(a.head);
            BOOST_TEST(a.labels.labels == b.labels.labels, id << ": " << list(a.labels.labels) << " against " << list(b.labels.labels));
            BOOST_TEST(a.labels.certified == b.labels.certified, id);
            BOOST_TEST_REQUIRE((a.per_token_copying.has_value() && b.per_token_copying.has_value()), id);
            const auto &x = *a.per_token_copying, &y = *b.per_token_copying;
            BOOST_TEST(x.top1 == y.top1, id);
            BOOST_TEST((x.top1_share == y.top1_share && x.top5_share == y.top5_share && x.bottom10_share == y.bottom10_share), id);
            BOOST_TEST(scan::precision_name(x.precision) == "float32", id);
            recomputed += x.recomputed;
            auto ca = scan::detail::circuits_json(a.circuits), cb = scan::detail::circuits_json(b.circuits);
            const double gap = partner_share_gap(ca, cb);
            BOOST_TEST(ca == cb, id);
            BOOST_TEST(gap <= 1e-6, id << ": partner shares " << gap << " apart");
        }
        BOOST_TEST_REQUIRE(fast.composition.size() == slow.composition.size());
        for (std::size_t i = 0; i < fast.composition.size(); ++i) {
            const auto &a = fast.composition[i], &b = slow.composition[i];
            BOOST_TEST((a.source_layer == b.source_layer && a.source_head == b.source_head && a.target_layer == b.target_layer && a.target_head == b.target_head));
            BOOST_TEST(std::abs(a.q - b.q) <= a.q_bound, name);
            BOOST_TEST(std::abs(a.k - b.k) <= a.k_bound, name);
            BOOST_TEST(std::abs(a.v - b.v) <= a.v_bound, name);
        }
        composition_recomputed += fast.composition_recomputed;
        BOOST_TEST(slow.composition_recomputed == 0u, name);  // float64 has nothing to recompute
        // The partners' float64 path, run by widening the bounds they are decided by far past any
        // score (every decision open): the float64 scan's circuits, shares and all, to the bit.
        scan::scan_options widened;
        widened.partner_bound_scale = 1e12;
        const auto decided = qkov::runs::scan_model(m, widened);
        std::size_t with_partners = 0;
        for (std::size_t i = 0; i < decided.heads.size(); ++i) {
            BOOST_TEST(scan::detail::circuits_json(decided.heads[i].circuits) == scan::detail::circuits_json(slow.heads[i].circuits), name);
            for (const auto& c : decided.heads[i].circuits ? decided.heads[i].circuits->candidates : std::vector<scan::circuit_candidate>{})
                with_partners += c.query.partners.size() + c.key.partners.size();
        }
        if (with_partners > 0) BOOST_TEST(decided.composition_recomputed > 0u, name);
        widened_recomputed += decided.composition_recomputed;
    }
    if (models == 0) return;
    BOOST_TEST(widened_recomputed > 0u);  // the trained models have partners: the float64 path ran
    BOOST_TEST_MESSAGE("float32 against float64 on " << models << " models: " << recomputed << " tokens and " << composition_recomputed
                                                       << " composition pairs recomputed in float64; " << widened_recomputed
                                                       << " with the partners' bounds widened 10^12 times");
}

/// stories260K: no circuit label on a head whose behaviour lacks it (qkov detect's forward pass;
/// a 5-layer model trained on TinyStories shows no induction on random repeats).
BOOST_AUTO_TEST_CASE(stories260K_circuit_labels_are_shown_by_behaviour)
{
    const auto dir = test::shared_dir_or_skip("real_models/llama2c-stories260K/hf");
    if (dir.empty()) return;
    const auto model = qkov::runs::open_model(dir.string());
    const auto r = qkov::runs::scan_model(model);
    const auto behaviour = behaviour_of(model);
    std::size_t searched = 0;
    for (const auto& h : r.heads) {
        searched += h.circuits && h.circuits->missing.empty() ? 1 : 0;
        const auto* b = behaviour.find(h.layer, h.head);
        BOOST_TEST_REQUIRE(b != nullptr);
        for (const auto& l : h.labels.labels)
            if (l == "duplicate_token" || l == "induction" || l.starts_with("repeat_shift_"))
                BOOST_TEST((b->shows(l) || b->undecided_on(l)), h.layer << "." << h.head << " labelled " << l << " without the behaviour");
        for (const char* behaviour_name : {"duplicate_token", "induction", "repeat_shift_2"})
            if (b->shows(behaviour_name)) BOOST_TEST(has(h.labels.labels, behaviour_name), h.layer << "." << h.head << " shows " << behaviour_name << " unlabelled");
    }
    BOOST_TEST(searched == 32u);  // layers 1-4, 8 heads each: every head below layer 0 was searched
}

/// stories260K's scan is the same to the bit with any number of workers and BLAS threads, and its
/// five layers scanned in three shards merge to the whole scan (scan_invariances.hpp; unit.scan
/// checks both on the fixtures under the sanitizers). The last shard reads layers 0-2 only for
/// what they write.
BOOST_AUTO_TEST_CASE(stories260K_scan_whatever_the_thread_count)
{
    if (const auto dir = test::shared_dir_or_skip("real_models/llama2c-stories260K/hf"); !dir.empty())
        test::check_thread_counts_leave_the_scan_unchanged(dir);
}

BOOST_AUTO_TEST_CASE(stories260K_shards_merge_to_the_whole)
{
    if (const auto dir = test::shared_dir_or_skip("real_models/llama2c-stories260K/hf"); !dir.empty())
        test::check_shards_merge_to_whole(dir, {{0, 1}, {2, 2}, {3, 4}});
}

/// A model whose layer 1 holds induction circuits: its shard reads the circuit writes of layer 0
/// and the residual's size at layer 1 from the shared inputs, both of which its circuits' numbers
/// depend on (stories260K's scan states no circuit).
BOOST_AUTO_TEST_CASE(induction_shards_merge_to_the_whole)
{
    const auto dir = test::shared_dir_or_skip("trained_models/llama_rope_induction");
    if (dir.empty()) return;
    scan::scan_options o;
    o.first_layer = 1;
    const auto r = runs::scan_model(runs::open_model(dir), o);
    BOOST_TEST_REQUIRE(std::any_of(r.heads.begin(), r.heads.end(), [](const scan::head_metrics& h) { return h.circuits && h.circuits->circuit; }));
    test::check_shards_merge_to_whole(dir, {{0, 0}, {1, 1}});
}
