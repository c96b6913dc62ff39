// What the scan's and the detection's renderers (documents, reports, figures, facts, the merge of
// shards, the comparison of weights with behaviour) include: their result headers, report/ and
// nlohmann-json, never a computation. The scan's computations reach LAPACK through checked_svd.hpp
// and thin_qr.hpp (xtensor-blas's xlinalg.hpp and xlapack.hpp), the forward pass reaches BLAS
// through numeric/blas_products.hpp (xblas.hpp); qkov's headers use #pragma once, so the include
// guards of those three headers say whether any of it came in. This file does not compile when it
// did. The cases below render results written by hand, with nothing measured.
#define BOOST_TEST_MODULE scan and detect renderers
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "qkov/detect/detection_figures.hpp"
#include "qkov/detect/detection_json.hpp"
#include "qkov/detect/detection_markdown.hpp"
#include "qkov/detect/detection_options.hpp"
#include "qkov/detect/scan_labels.hpp"
#include "qkov/detect/weights_vs_behaviour.hpp"
#include "qkov/labels/vocabulary.hpp"
#include "qkov/scan/scan_facts.hpp"
#include "qkov/scan/scan_figures.hpp"
#include "qkov/scan/scan_json.hpp"
#include "qkov/scan/scan_markdown.hpp"
#include "qkov/scan/scan_merge.hpp"
#include "qkov/scan/scan_options.hpp"

#if defined(XLAPACK_HPP) || defined(XLINALG_HPP)
#error "a renderer or result header of scan/ or detect/ includes LAPACK (xtensor-blas's xlapack.hpp): include the result headers, not the computations"
#endif
#if defined(XBLAS_HPP)
#error "a renderer or result header of scan/ or detect/ includes BLAS (numeric/ or the forward pass): include the result headers, not the computations"
#endif

using namespace qkov;

BOOST_AUTO_TEST_CASE(scan_result_defaults_are_an_empty_scan_with_the_documented_thresholds)
{
    const scan::scan_result r;
    BOOST_TEST(r.heads.empty());
    BOOST_TEST(r.composition.empty());
    BOOST_TEST(!r.copying_available);
    BOOST_TEST(r.thresholds.offset_mass == 0.5);
    BOOST_TEST(r.thresholds.sink == 0.3);
    BOOST_TEST(r.thresholds.window == 8u);
    BOOST_TEST(r.thresholds.context == 0u);  // resolved by the scan from the model
    const scan::head_metrics h;
    BOOST_TEST(!h.q.condition.has_value());
    BOOST_TEST(!h.structure.rope.has_value());
    BOOST_TEST(h.labels.labels.empty());
    BOOST_TEST(scan::scan_options{}.certify);
}

BOOST_AUTO_TEST_CASE(a_hand_written_scan_renders_without_the_scan)
{
    scan::scan_result r;
    scan::head_metrics h;
    h.labels.labels = {"previous_token"};
    r.heads.push_back(h);
    const auto document = scan::scan_document(r, scan::model_facts(r), nlohmann::json::object(), 0, 0, {});
    BOOST_TEST(document.at(scan::scan_json_keys::schema).get<std::string>() == qkov::schemas::scan);
    BOOST_TEST(document.at(scan::scan_json_keys::heads).size() == 1u);
    BOOST_TEST(document.at(scan::scan_json_keys::heads)[0].at(scan::scan_json_keys::labels)[0].get<std::string>() == "previous_token");
}

BOOST_AUTO_TEST_CASE(detection_defaults_and_rules_need_no_forward_pass)
{
    const detect::detection_result r;
    BOOST_TEST(r.behaviour_fraction == 0.5);
    BOOST_TEST(r.find(0, 0) == nullptr);
    BOOST_TEST(detect::detection_options{}.length == 50u);
    const auto rules = detect::behaviour_rules(50, 0.5);
    const auto sink = std::find_if(rules.begin(), rules.end(), [](const detect::behaviour_rule& rule) { return rule.name == "sink"; });
    BOOST_REQUIRE(sink != rules.end());
    BOOST_TEST(sink->threshold == labels::sink_threshold);
}

// The vocabulary (labels/vocabulary.hpp) against everything that spells its names: the JSON
// schemas the documents are checked with, the detection's behaviours that judge each label, and the
// shared constants. A label added to the table but not to a schema, or judged by a behaviour the
// detection does not measure, fails here.
namespace {

nlohmann::json schema(const char* name)
{
    std::ifstream in(std::filesystem::path(QKOV_SCHEMA_DIR) / name);
    BOOST_TEST_REQUIRE(in.good(), "schema " << name << " is readable");
    return nlohmann::json::parse(in);
}

std::vector<std::string> behaviour_names()
{
    std::vector<std::string> out;
    for (const auto& r : detect::behaviour_rules(50, labels::majority)) out.push_back(r.name);
    return out;
}

bool contains(const std::vector<std::string>& names, const std::string& name) { return std::find(names.begin(), names.end(), name) != names.end(); }

} // namespace

BOOST_AUTO_TEST_CASE(every_label_name_is_the_scan_schemas_and_no_other)
{
    const std::regex label(schema("scan.schema.json").at("$defs").at("label").at("pattern").get<std::string>());
    const auto names = labels::every_label_name();
    BOOST_TEST(names.size() == 1u + 8u + 1 + 1 + 1 + 1 + 1 + 7u + 1 + 1);  // offsets 0, 2 .. 8; repeat shifts 2 .. 8
    for (const auto& name : names) {
        BOOST_TEST(std::regex_match(name, label), name << " is a label the scan schema accepts");
        const auto parsed = labels::parse_label(name);
        BOOST_TEST_REQUIRE(parsed.has_value(), name);
        BOOST_TEST(labels::name_of(parsed->kind, parsed->number) == name);
    }
    // Names just outside the vocabulary: offset 1 is previous_token, shifts 0 and 1 are
    // duplicate_token and induction, and nothing reaches past the largest offset.
    for (const char* outside : {"offset_1", "offset_9", "repeat_shift_0", "repeat_shift_1", "repeat_shift_9", "copying", "offset_", "induction_2"}) {
        BOOST_TEST(!std::regex_match(std::string(outside), label), outside << " is refused by the scan schema");
        BOOST_TEST(!labels::parse_label(outside).has_value(), outside);
    }
    BOOST_TEST(labels::circuit_label(0) == "duplicate_token");
    BOOST_TEST(labels::circuit_label(1) == "induction");
    BOOST_TEST(labels::circuit_label(5) == "repeat_shift_5");
}

BOOST_AUTO_TEST_CASE(every_label_is_judged_by_behaviours_the_detection_measures)
{
    const auto behaviours = behaviour_names();
    const auto rules = detect::label_rules();
    BOOST_TEST(rules.size() == labels::every_label_name().size(), "one comparison rule per label name");
    for (const auto& r : rules) {
        BOOST_TEST(labels::parse_label(r.label).has_value(), r.label);
        BOOST_TEST(!r.confirming.empty(), r.label << " has a behaviour that confirms it");
        for (const auto& b : r.confirming) BOOST_TEST(contains(behaviours, b), r.label << " is confirmed by " << b << ", a behaviour the detection measures");
        for (const auto& b : r.contradicting) BOOST_TEST(contains(behaviours, b), r.label << " is contradicted by " << b << ", a behaviour the detection measures");
    }
    // A numbered label is judged by its own number alone.
    const auto offset_3 = std::find_if(rules.begin(), rules.end(), [](const auto& r) { return r.label == "offset_3"; });
    BOOST_TEST_REQUIRE((offset_3 != rules.end()));
    BOOST_TEST((offset_3->confirming == std::vector<std::string>{"offset_3"}));
    const auto shift_4 = std::find_if(rules.begin(), rules.end(), [](const auto& r) { return r.label == "repeat_shift_4"; });
    BOOST_TEST_REQUIRE((shift_4 != rules.end()));
    BOOST_TEST((shift_4->confirming == std::vector<std::string>{"repeat_shift_4"}));
    BOOST_TEST(shift_4->reason == "predicts a majority of the attention 4 after the earlier copy");
}

BOOST_AUTO_TEST_CASE(the_detect_schema_lists_the_detections_behaviours_and_shifts)
{
    const auto s = schema("detect.schema.json");
    std::vector<std::string> listed;
    for (const auto& b : s.at("$defs").at("behaviour").at("enum")) listed.push_back(b.get<std::string>());
    auto measured = behaviour_names();
    std::sort(listed.begin(), listed.end());
    std::sort(measured.begin(), measured.end());
    BOOST_TEST(listed == measured, boost::test_tools::per_element());
    std::vector<int> shifts;
    for (const auto& x : s.at("properties").at("detection").at("properties").at("repeat_shifts").at("const")) shifts.push_back(x.get<int>());
    BOOST_TEST(shifts == std::vector<int>(forward::repeat_shifts.begin(), forward::repeat_shifts.end()), boost::test_tools::per_element());
    BOOST_TEST(forward::repeat_shifts.front() == -1);
    BOOST_TEST(forward::repeat_shifts.back() == static_cast<int>(labels::largest_offset));
    BOOST_TEST(scan::label_thresholds{}.window == labels::largest_offset, "the scan's window is the detection's largest offset");
}
