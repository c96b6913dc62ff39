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
#include <string>

#include "qkov/detect/detection_figures.hpp"
#include "qkov/detect/detection_json.hpp"
#include "qkov/detect/detection_options.hpp"
#include "qkov/detect/scan_labels.hpp"
#include "qkov/detect/weights_vs_behaviour.hpp"
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
    const auto document = scan::scan_document(r, scan::model_facts(r), nlohmann::json::object(), 0, 0);
    BOOST_TEST(document.at(scan::scan_json_keys::schema).get<std::string>() == scan::scan_json_keys::schema_name);
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
    BOOST_TEST(sink->threshold == detect::sink_threshold);
}
