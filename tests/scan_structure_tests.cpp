// The pieces of the scan's position and content structure (scan/structure_measurement.hpp,
// head_labels.hpp, scan_model.hpp's through_norm) on heads built here, whose values are known in
// closed form: seed 001's previous-token head, a partial-rotary head, a head that reads nothing.
#define BOOST_TEST_MODULE scan_structure
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <functional>
#include <numbers>
#include <optional>
#include <random>

#include "qkov/io/safetensors_writer.hpp"
#include "qkov/scan/head_labels.hpp"
#include "qkov/scan/absorbed_form.hpp"
#include "qkov/scan/copying_score.hpp"
#include "qkov/scan/structure_measurement.hpp"
#include "qkov/scan/scan_facts.hpp"
#include "qkov/scan/sampled_attention.hpp"
#include "qkov/scan/scan_model.hpp"
#include "qkov/scan/seed_head_model.hpp"
#include "model_runs.hpp"
#include "shared_dir.hpp"

using namespace qkov;
using namespace qkov::scan;

namespace {

constexpr std::size_t D = 20, d = 16, pairs = d / 2;
constexpr double base = 10000;

double theta_of(std::size_t l, std::size_t rotary = d) { return std::pow(base, -2.0 * static_cast<double>(l) / static_cast<double>(rotary)); }

/// The residual direction u every token reads (unit, along coordinate 3).
vector unit_direction()
{
    vector u = xt::zeros<double>({D});
    u(3) = 1;
    return u;
}

/// Seed 001's previous-token head (R4, R5): W_k = k0 u^T with each pair of k0 = (1, 0), and
/// W_q = q0 u^T with each pair of q0 = R(-theta_l) (1, 0), so that
/// s(delta) = sum_l cos((delta - 1) theta_l): largest at delta = 1.
model::head_weights previous_token_head(rope_pairing pairing)
{
    const rope_layout layout{d, d, pairing};
    model::head_weights h;
    h.w_q = xt::zeros<double>({d, D}), h.w_k = xt::zeros<double>({d, D});
    h.w_v = xt::zeros<double>({d, D}), h.w_o = xt::zeros<double>({D, d});
    for (std::size_t l = 0; l < pairs; ++l) {
        h.w_k(layout.first(l), 3) = 1;
        h.w_q(layout.first(l), 3) = std::cos(theta_of(l));
        h.w_q(layout.second(l), 3) = -std::sin(theta_of(l));
    }
    return h;
}

io::rope_config rope(rope_pairing pairing, std::size_t rotary = d)
{
    io::rope_config r;
    r.pairing = pairing, r.rotary_dim = rotary, r.base = base;
    return r;
}

} // namespace

BOOST_AUTO_TEST_CASE(previous_token_head_profile_peaks_at_offset_one_and_is_certified)
{
    for (const auto pairing : {rope_pairing::interleaved, rope_pairing::rotate_half}) {
        const auto h = previous_token_head(pairing);
        constexpr std::size_t N = 512;
        const auto p = measure_offset_profile(h, rope(pairing), unit_direction(), N, true);
        BOOST_TEST(p.score.size() == N + 1);
        BOOST_TEST(p.best == 1u);
        // The closed form, in long double, independently of the library's formula.
        long double smallest_gap = INFINITY;
        for (std::size_t delta = 0; delta <= N; ++delta) {
            long double s = 0;
            for (std::size_t l = 0; l < pairs; ++l) s += std::cos((static_cast<long double>(delta) - 1) * theta_of(l));
            BOOST_TEST(p.score[delta] == static_cast<double>(s), boost::test_tools::tolerance(1e-12));
            if (delta != 1) smallest_gap = std::min(smallest_gap, static_cast<long double>(pairs) - s);
        }
        BOOST_REQUIRE(p.certificate.has_value());
        const auto& c = *p.certificate;
        BOOST_TEST(status_name(c.status) == std::string("holds"));
        BOOST_TEST(c.undecided_offsets == 0u);
        BOOST_TEST(c.margin_lower > 0);
        BOOST_TEST(c.margin_lower <= static_cast<double>(smallest_gap) * (1 + 1e-9));
        BOOST_TEST(c.margin_upper >= static_cast<double>(smallest_gap) * (1 - 1e-9));
    }
}

BOOST_AUTO_TEST_CASE(previous_token_head_pairs_prefer_offset_one_with_equal_energy)
{
    const auto h = previous_token_head(rope_pairing::rotate_half);
    const auto r = measure_rope(h, rope(rope_pairing::rotate_half), 4096);
    BOOST_REQUIRE(r.pairs.size() == pairs);
    for (std::size_t l = 0; l < pairs; ++l) {
        BOOST_TEST(r.pairs[l].theta == theta_of(l), boost::test_tools::tolerance(1e-14));
        BOOST_TEST(r.pairs[l].energy_share == 1.0 / pairs, boost::test_tools::tolerance(1e-12));
        BOOST_TEST(r.pairs[l].phase == -theta_of(l), boost::test_tools::tolerance(1e-12));
        BOOST_TEST(r.pairs[l].preferred_offset == 1.0, boost::test_tools::tolerance(1e-9));
        // slow: theta * 4096 < pi / 2, i.e. 10000^(-2l/16) < 3.83e-4: l = 7 only.
        BOOST_TEST(r.pairs[l].slow == (l == 7));
    }
    BOOST_TEST(r.unrotated_share == 0.0);
    BOOST_TEST(r.slow_share == 1.0 / pairs, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(r.slow_baseline == 2.0 / d, boost::test_tools::tolerance(1e-15));
}

BOOST_AUTO_TEST_CASE(partial_rotary_energy_of_the_unrotated_block)
{
    // rotary_dim 8 of d = 16: pairs 0..3 rotate; rows 8..15 pass through. W_q = W_k with a 2 in
    // every unrotated row and a 1 in every rotated row, each row reading its own coordinate:
    // pair energy (1 + 1)(1 + 1) / 2 = 2 each, unrotated ||W_q^T W_k||_F^2 = 8 * 16 = 128.
    model::head_weights h;
    h.w_q = xt::zeros<double>({d, D}), h.w_v = xt::zeros<double>({d, D}), h.w_o = xt::zeros<double>({D, d});
    for (std::size_t i = 0; i < d; ++i) h.w_q(i, i) = i < 8 ? 1.0 : 2.0;
    h.w_k = h.w_q;
    const auto r = measure_rope(h, rope(rope_pairing::rotate_half, 8), 4096);
    BOOST_REQUIRE(r.pairs.size() == 4u);
    const double total = 4 * 2.0 + 128.0;
    for (const auto& p : r.pairs) BOOST_TEST(p.energy_share == 2.0 / total, boost::test_tools::tolerance(1e-14));
    BOOST_TEST(r.unrotated_share == 128.0 / total, boost::test_tools::tolerance(1e-14));
    BOOST_TEST(r.slow_baseline == 8.0 / 16.0);  // no slow pair at base 10000, rotary 8; 8 unrotated of 16
    // W_q = W_k symmetric per pair: every pair prefers the same content at offset 0.
    for (const auto& p : r.pairs) BOOST_TEST(p.phase == 0.0);
}

BOOST_AUTO_TEST_CASE(a_head_that_reads_nothing_is_never_certified)
{
    model::head_weights h;
    h.w_q = xt::zeros<double>({d, D}), h.w_k = xt::zeros<double>({d, D});
    const auto p = measure_offset_profile(h, rope(rope_pairing::interleaved), unit_direction(), 64, true);
    BOOST_REQUIRE(p.certificate.has_value());
    BOOST_TEST(status_name(p.certificate->status) == std::string("undecided"));
    BOOST_TEST(p.certificate->undecided_offsets == 64u);
    BOOST_TEST(p.runner_up_fraction == 0.0);
}

BOOST_AUTO_TEST_CASE(scaled_angles_and_what_the_certificate_encloses)
{
    auto r = rope(rope_pairing::rotate_half);
    r.scaling = io::rope_scaling{};
    r.scaling->type = "linear", r.scaling->factor = 4.0;
    const auto theta = forward::rope_theta<double>(r);
    for (std::size_t l = 0; l < pairs; ++l) BOOST_TEST(theta[l] == theta_of(l) / 4, boost::test_tools::tolerance(1e-14));
    BOOST_TEST(angles_modelled(r));
    // The interval angles enclose the double ones, scaled or not.
    for (const auto& config : {rope(rope_pairing::rotate_half), r}) {
        const auto enclosed = forward::rope_theta<interval>(config);
        const auto plain = forward::rope_theta<double>(config);
        for (std::size_t l = 0; l < pairs; ++l) BOOST_TEST((enclosed[l].lo() <= plain[l] && plain[l] <= enclosed[l].hi()));
    }
    // llama3's blend is applied in double but not enclosed: the certificate stays undecided.
    r.scaling->type = "llama3", r.scaling->factor = 8.0;
    BOOST_TEST(angles_modelled(r));
    BOOST_CHECK_THROW(forward::rope_theta<interval>(r), std::invalid_argument);
    const auto p = measure_offset_profile(previous_token_head(rope_pairing::rotate_half), r, unit_direction(), 64, true);
    BOOST_REQUIRE(p.certificate.has_value());
    BOOST_TEST(status_name(p.certificate->status) == std::string("undecided"));
    r.scaling->type = "yarn";
    BOOST_TEST(!angles_modelled(r));
}

BOOST_AUTO_TEST_CASE(labels_follow_their_rules_and_say_undecided_when_evidence_is_missing)
{
    const label_thresholds t;
    head_structure s;
    using strings = std::vector<std::string>;
    // No evidence at all: every label undecided with the reason, none given.
    label_evidence e;
    e.mean_field_missing = "no proxy input", e.copying_missing = "no read-out";
    auto l = label_head(s, e, t);
    BOOST_TEST(l.labels.empty());
    BOOST_REQUIRE(l.undecided.size() == 6u);
    BOOST_TEST(l.undecided[0].label == "previous_token");
    BOOST_TEST(l.undecided[0].reason == "no proxy input");
    BOOST_TEST(l.undecided[5].label == "copy_suppression");
    BOOST_TEST(l.undecided[5].reason == "no read-out");
    // A majority of every query's attention on its previous key: previous_token (read from the
    // previous-token score, not from p(1) over queries W .. N) and positional, certified where the
    // lower bounds reach 1/2.
    mean_field_evidence m;
    m.window = 8;
    m.by_offset = {0.10, 0.60, 0.05, 0, 0, 0, 0, 0, 0};
    m.previous = 0.58;
    m.swing = 5, m.swing_bound = 5.1;
    e.mean_field = &m;
    l = label_head(s, e, t);
    BOOST_TEST((l.labels == strings{"previous_token", "positional"}));
    BOOST_TEST(l.certified.empty());  // no lower bounds: nothing certified
    m.previous_lower = 0.55, m.top_two_lower = 0.64;
    BOOST_TEST((label_head(s, e, t).certified == strings{"previous_token", "positional"}));
    m.previous_lower = 0.49;  // the prediction reaches 1/2, its lower bound does not: labelled, not certified
    l = label_head(s, e, t);
    BOOST_TEST((l.labels == strings{"previous_token", "positional"}));
    BOOST_TEST((l.certified == strings{"positional"}));  // the top two's own bound, 0.64 >= 1/2
    m.top_two_lower = 0.45;
    BOOST_TEST(label_head(s, e, t).certified.empty());
    // p(1) over queries W .. N at 0.6 with the score over every query under 1/2 (early queries
    // attending elsewhere): positional only, since previous_token is judged by the score.
    m.previous = 0.49, m.previous_lower.reset(), m.top_two_lower.reset();
    BOOST_TEST((label_head(s, e, t).labels == strings{"positional"}));
    // And the other way: the score over every query at 1/2 while p(1) over W .. N is not.
    m.by_offset = {0.45, 0.30, 0.05, 0, 0, 0, 0, 0, 0}, m.previous = 0.5;
    BOOST_TEST((label_head(s, e, t).labels == strings{"previous_token", "positional"}));
    m.previous = 0;
    // Mass split over two offsets: positional only; at offset 2: offset_2.
    m.by_offset = {0.30, 0.25, 0.05, 0, 0, 0, 0, 0, 0}, m.by_offset_lower.clear(), m.top_two_lower.reset();
    BOOST_TEST((label_head(s, e, t).labels == strings{"positional"}));
    m.by_offset = {0.0, 0.1, 0.7, 0, 0, 0, 0, 0, 0};
    BOOST_TEST((label_head(s, e, t).labels == strings{"offset_2", "positional"}));
    // A sink, and a head whose swing cannot double a weight: sink, semantic. Only semantic's swing
    // bound is proved (its content and "not positional" conditions are measured), so semantic is
    // never certified; the proved part is listed under its own name.
    m.by_offset = {0.1, 0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.05, 0.05};
    m.bos = 0.35, m.bos_lower = 0.34, m.swing = 0.5, m.swing_bound = 0.6, m.content_spread = 0.4;
    l = label_head(s, e, t);
    BOOST_TEST((l.labels == strings{"sink", "semantic"}));
    BOOST_TEST((l.certified == strings{"sink"}));
    BOOST_REQUIRE(l.certified_parts.size() == 1u);
    BOOST_TEST(l.certified_parts[0].label == "semantic");
    BOOST_TEST(l.certified_parts[0].part == "swing");
    BOOST_TEST(l.certified_parts[0].statement.find("0.6") != std::string::npos);
    m.bos_lower = 0.29;
    BOOST_TEST(label_head(s, e, t).certified.empty());
    m.content_spread = 0.3;  // 2 x 0.3 < ln 2: content cannot double a weight either, nothing decides
    l = label_head(s, e, t);
    BOOST_TEST((l.labels == strings{"sink"}));
    BOOST_TEST(l.undecided.front().label == "semantic");
    m.content_spread.reset();  // not measured: undecided
    BOOST_TEST(label_head(s, e, t).undecided.front().label == "semantic");
    m.content_spread = 0.4;
    // A swing above ln 2 without an offset majority: semantic undecided, with the swing in the reason.
    m.bos = 0, m.swing = 2.5, m.swing_bound = 2.6;
    l = label_head(s, e, t);
    BOOST_TEST(l.labels.empty());
    BOOST_REQUIRE(l.undecided.size() == 3u);  // semantic, and copy and copy_suppression (no read-out)
    BOOST_TEST(l.undecided[0].label == "semantic");
    BOOST_TEST(l.undecided[0].reason.find("2.5") != std::string::npos);
    // Copying: both the per-token share and the centred eigenvalue score.
    token_copying c;
    c.top1_share = 0.6, c.bottom10_share = 0.0;
    e.copying = &c, e.centred_copying_score = 0.8;
    BOOST_TEST((label_head(s, e, t).labels == strings{"copy"}));
    e.centred_copying_score = 0.69;
    BOOST_TEST(label_head(s, e, t).labels.empty());
    c.top1_share = 0.4, e.centred_copying_score = 0.95;  // positive in aggregate, but most tokens are not copied
    BOOST_TEST(label_head(s, e, t).labels.empty());
    c.bottom10_share = 0.5;  // most tokens pushed to the bottom, but the circuit is positive in aggregate
    BOOST_TEST(label_head(s, e, t).labels.empty());
    e.centred_copying_score = -0.75;
    BOOST_TEST((label_head(s, e, t).labels == strings{"copy_suppression"}));
    c.bottom10_share = 0.1;  // negative in aggregate, but token by token it suppresses few
    BOOST_TEST(label_head(s, e, t).labels.empty());
}

BOOST_AUTO_TEST_CASE(the_seed_searches_find_the_seed_constructions)
{
    const label_thresholds t;
    head_structure s;
    s.one_direction_q = s.one_direction_k = 0.95;
    BOOST_TEST(seed_searches(s, t).empty());  // one direction, but no reading to call constant
    s.reading_q = reading_constancy{2.0, 0.1};
    s.reading_k = reading_constancy{-1.0, 0.2};
    BOOST_TEST((seed_searches(s, t) == std::vector<std::string>{"rank_one_reading"}));
    s.reading_k = reading_constancy{-1.0, 0.3};  // std / |mean| = 0.3: not constant
    BOOST_TEST(seed_searches(s, t).empty());
    // Bottom-heavy: slow share against max(0.5, min(2b, (1 + b) / 2)).
    BOOST_TEST(semantic_share_needed(0.125, t) == 0.5);
    BOOST_TEST(semantic_share_needed(0.75, t) == 0.875);
    head_structure slow;
    slow.rope = rope_structure{};
    slow.rope->slow_baseline = 0.125, slow.rope->slow_share = 0.6;
    BOOST_TEST((seed_searches(slow, t) == std::vector<std::string>{"bottom_heavy"}));
    slow.rope->slow_share = 0.45;
    BOOST_TEST(seed_searches(slow, t).empty());
}

BOOST_AUTO_TEST_CASE(norms_match_their_definitions)
{
    model::matrix x = {{1.0, 2.0, 3.0, 4.0}};
    model::norm_weights n;
    n.weight = {1.0, 1.0, 2.0, 1.0};
    n.eps = 0;
    n.kind = io::norm_kind::layer_norm;
    n.bias = {0.0, 0.0, 0.0, 0.5};
    auto y = through_norm(n, x);  // mean 2.5, variance 1.25
    const double s = 1 / std::sqrt(1.25);
    BOOST_TEST(y(0, 0) == -1.5 * s, boost::test_tools::tolerance(1e-15));
    BOOST_TEST(y(0, 2) == 2 * 0.5 * s, boost::test_tools::tolerance(1e-15));
    BOOST_TEST(y(0, 3) == 1.5 * s + 0.5, boost::test_tools::tolerance(1e-15));
    n.kind = io::norm_kind::rms_norm;
    n.bias = {};
    y = through_norm(n, x);  // mean square 7.5
    BOOST_TEST(y(0, 2) == 2 * 3 / std::sqrt(7.5), boost::test_tools::tolerance(1e-15));
    n.weight = {1.0};
    BOOST_CHECK_THROW(through_norm(n, x), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(constant_reading_and_top_share)
{
    // Every row reads 2 along coordinate 3; the other coordinates vary.
    model::matrix x = xt::zeros<double>({std::size_t{5}, D});
    for (std::size_t t = 0; t < 5; ++t) x(t, 3) = 2, x(t, 5) = static_cast<double>(t);
    const auto u = unit_direction();
    std::vector<double> projections(5, 0.0);
    for (std::size_t t = 0; t < 5; ++t)
        for (std::size_t j = 0; j < D; ++j) projections[t] += x(t, j) * u(j);
    const auto c = constancy_of(projections);
    BOOST_TEST(c.mean == 2.0);
    BOOST_TEST(c.spread == 0.0);
    BOOST_TEST(c.variation() == 0.0);
    BOOST_TEST(top_share(vector{3.0, 4.0}) == 9.0 / 25.0);
    BOOST_TEST(top_share(vector{0.0, 0.0}) == 0.0);
    // The direction a rank-1 W_q reads is u (up to sign).
    const auto h = previous_token_head(rope_pairing::interleaved);
    const auto dir = top_read_direction(factor(xt::transpose(h.w_q)));
    BOOST_TEST(std::abs(dir(3)) == 1.0, boost::test_tools::tolerance(1e-14));
}

BOOST_AUTO_TEST_CASE(the_seed_head_model_is_scanned_as_its_construction_says)
{
    const auto dir = write_seed_head_model(std::filesystem::temp_directory_path() / "qkov-seed-head-model-test");
    const auto model = qkov::runs::open_model(dir);
    const auto r = qkov::runs::scan_model(model);
    for (const auto& f : model_facts(r)) BOOST_TEST(f.passed, f.claim << ": " << f.statement << " (" << f.detail << ")");
    for (const auto& f : seed_head_facts(r)) BOOST_TEST(f.passed, f.claim << ": " << f.statement << " (" << f.detail << ")");
    // Nothing else is labelled: L1H0 and L1H1 read nothing, L0H0's OV copies dimensions, not tokens.
    for (const auto& h : r.heads)
        if (h.layer == 1) BOOST_TEST(h.labels.labels.empty(), "L1H" << h.head);
    std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(the_safetensors_writer_refuses_inconsistent_tensors)
{
    const auto path = std::filesystem::temp_directory_path() / "qkov-writer-test.safetensors";
    BOOST_CHECK_THROW(io::write_safetensors(path, {{"a", {2, 2}, {1.0f, 2.0f, 3.0f}}}), std::invalid_argument);
    BOOST_CHECK_THROW(io::write_safetensors(path, {{"a", {1}, {1.0f}}, {"a", {1}, {2.0f}}}), std::invalid_argument);
    BOOST_CHECK_THROW(io::write_safetensors(path, {{"", {1}, {1.0f}}}), std::invalid_argument);
    BOOST_CHECK_THROW(io::write_safetensors(path, {{"a", {std::size_t{1} << 40, std::size_t{1} << 40}, {}}}), std::overflow_error);
    BOOST_TEST(!std::filesystem::exists(path));
}

BOOST_AUTO_TEST_CASE(biases_and_partial_rotary_reduce_to_one_form_per_offset)
{
    // A random head with biases, 8 of 16 coordinates rotating (rotate-half): the absorbed form's
    // scores match the absolute-position rotation; the same head scored with the query's rotation
    // left out (a form that is not one bilinear form per offset) does not.
    std::mt19937_64 random(7);
    std::normal_distribution<double> gaussian;
    model::head_weights h;
    h.w_q = xt::empty<double>({d, D}), h.w_k = xt::empty<double>({d, D});
    h.b_q = xt::empty<double>({d}), h.b_k = xt::empty<double>({d});
    for (auto* m : {&h.w_q, &h.w_k})
        for (auto& v : *m) v = gaussian(random);
    for (auto* b : {&h.b_q, &h.b_k})
        for (auto& v : *b) v = gaussian(random);
    const auto r = rope(rope_pairing::rotate_half, 8);
    const auto x = probe_inputs(20, D);
    BOOST_TEST(absorbed_form_gap(h, r, x) < 1e-13);
    // Teeth: rotating keys only (queries unrotated) depends on n, not n - m; the gap is order one.
    const model::matrix q_plain = model::projected_rotated(x, h.w_q, h.b_q, std::nullopt), k_rotated = model::projected_rotated(x, h.w_k, h.b_k, r);
    const auto theta = forward::rope_theta<double>(r);
    double worst = 0;
    for (std::size_t m = 0; m < 20; ++m)
        for (std::size_t j = 0; j <= m; ++j) {
            double direct = 0;
            for (std::size_t i = 0; i < d; ++i) direct += q_plain(m, i) * k_rotated(j, i);
            const model::vector xm = xt::view(x, m, xt::all()), xj = xt::view(x, j, xt::all());
            const double absorbed = offset_score(project<double>(h.w_q, h.b_q, xm), project<double>(h.w_k, h.b_k, xj), rope_layout{d, 8, rope_pairing::rotate_half}, theta, m - j);
            worst = std::max(worst, std::abs(absorbed - direct));
        }
    BOOST_TEST(worst > 1.0);
}

BOOST_AUTO_TEST_CASE(the_centred_copying_score_drops_what_every_token_shares)
{
    // Tied embeddings E = 1 c^T + R: the centred circuit W_E^T (I - 1 1^T / V) W_E is
    // sum_t (e_t - mean)(e_t - mean)^T, formed here entry by entry as the reference for the scan's
    // rank-one form, and the shared c has no part in it.
    constexpr std::size_t V = 7, width = 5, d = 3;
    std::mt19937_64 random(3);
    std::normal_distribution<double> gaussian;
    model::matrix e = xt::empty<double>({V, width});
    for (auto& v : e) v = gaussian(random);
    model::head_weights h;
    h.w_v = xt::empty<double>({d, width});
    h.w_o = xt::empty<double>({width, d});
    for (auto& v : h.w_v) v = gaussian(random);
    for (auto& v : h.w_o) v = gaussian(random);
    const auto scores_of = [&](const model::matrix& embedding) {
        const model::vector mean = xt::mean(embedding, {0});
        model::matrix centred = xt::zeros<double>({width, width});
        for (std::size_t i = 0; i < width; ++i)
            for (std::size_t j = 0; j < width; ++j)
                for (std::size_t t = 0; t < V; ++t) centred(i, j) += (embedding(t, i) - mean(i)) * (embedding(t, j) - mean(j));
        const auto scan = copying_scores(h, token_circuits{token_gram(embedding), mean, mean, V});
        const auto reference = eigenvalue_score(multiply(multiply(h.w_v, centred), h.w_o));
        BOOST_TEST_REQUIRE((scan.centred.has_value() && reference.has_value()));
        BOOST_TEST(*scan.centred == *reference, boost::test_tools::tolerance(1e-10));
        BOOST_TEST_REQUIRE(scan.plain.has_value());
        BOOST_TEST(*scan.plain == *eigenvalue_score(multiply(multiply(h.w_v, multiply(embedding, embedding, true, false)), h.w_o)),
                   boost::test_tools::tolerance(1e-10));
        return scan;
    };
    const auto without = scores_of(e);
    for (std::size_t t = 0; t < V; ++t) e(t, 2) += 10;  // the shared component
    const auto with = scores_of(e);
    BOOST_TEST(*with.centred == *without.centred, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(std::abs(*with.plain - *without.plain) > 1e-3);  // the uncentred score does see it
}

namespace {
// A copy, not a pointer: callers pass model_facts(r), a temporary gone after the call's statement.
std::optional<scan_fact> fact_named(const std::vector<scan_fact>& facts, const std::string& claim)
{
    for (const auto& f : facts)
        if (f.claim == claim) return f;
    return std::nullopt;
}

// Scans each fixture model, requires its fact `claim` to be stated and to hold, then hands the
// scan to `more` for the claim's own checks and for breaking it.
void on_every_fixture(const std::string& claim, const std::function<void(const std::string& name, scan_result& r)>& more)
{
    const auto dir = test::shared_dir_or_skip("fixtures/models");
    if (dir.empty()) return;
    for (const std::string name : {"gpt2", "gpt_neox", "llama", "llama_bf16"}) {
        auto r = qkov::runs::scan_model(qkov::runs::open_model(dir / name));
        const auto fact = fact_named(model_facts(r), claim);
        BOOST_TEST_REQUIRE(fact.has_value(), name);
        BOOST_TEST(fact->passed, name << ": " << fact->detail);
        more(name, r);
    }
}
} // namespace

// Claim B1: each head's QK circuit equals the sum of its SVD's paired channels u_k sigma_k v_k^T.
// The scan measures it as the reconstruction residual of every head of the fixtures; the fact
// fails when one head's residual exceeds 1e-10.
BOOST_AUTO_TEST_CASE(B1_qk_circuit_is_its_paired_channels_on_every_fixture_head)
{
    on_every_fixture("B1", [](const std::string& name, scan_result& r) {
        for (const auto& h : r.heads) BOOST_TEST(h.qk.residual <= 1e-12, name << " " << h.layer << "." << h.head);
        r.heads.back().qk.residual = 2e-10;  // one head whose channels miss its circuit
        BOOST_TEST(!fact_named(model_facts(r), "B1").value().passed, name);
    });
}

// Claim B5: W_Q and W_K of a trained or initialised head are well conditioned (below 1000). On
// the fixtures every projection has full rank and a condition number; one above 1000 fails the
// fact, and a model whose projections are all rank-deficient states nothing about B5.
BOOST_AUTO_TEST_CASE(B5_full_rank_projections_below_condition_1000_on_every_fixture)
{
    on_every_fixture("B5", [](const std::string& name, scan_result& r) {
        for (const auto& h : r.heads) BOOST_TEST((h.q.condition.has_value() && h.k.condition.has_value()), name << " " << h.layer << "." << h.head);
        r.heads.front().k.condition = 1500.0;
        BOOST_TEST(!fact_named(model_facts(r), "B5").value().passed, name);
        for (auto& h : r.heads) h.q.condition.reset(), h.k.condition.reset();
        BOOST_TEST(!fact_named(model_facts(r), "B5").has_value(), name);
    });
}

/// The mean field's softmax, certificate and swing bound on a kernel whose values are set by hand.
BOOST_AUTO_TEST_CASE(the_mean_field_prediction_is_the_softmax_it_says)
{
    // Stationary kernel over N = 4: s(0) = 0, s(1) = 2, s(2) = s(3) = s(4) = 0, BOS at -1 for every query.
    head_kernel<double> k;
    k.positions = 4;
    k.by_offset = {0.0, 2.0, 0.0, 0.0, 0.0};
    k.bos.assign(5, -1.0);
    const auto p = predict_attention(k, 2);  // offsets: queries 2 .. 4; BOS: queries 1 .. 4
    // Query m: keys 0 (BOS, -1), offsets 0 .. m - 1 (offset 1 at 2, the rest at 0); query 1 has
    // BOS and offset 0 only.
    double offset1 = 0, bos = std::exp(-1.0) / (std::exp(-1.0) + 1) / 4;
    for (int m = 2; m <= 4; ++m) {
        const double total = std::exp(-1.0) + std::exp(2.0) + (m - 1);
        offset1 += std::exp(2.0) / total / 3, bos += std::exp(-1.0) / total / 4;
    }
    BOOST_TEST(p.first_query == 2u);
    BOOST_TEST(std::abs(p.by_offset[1] - offset1) < 1e-15);
    BOOST_TEST(std::abs(p.bos - bos) < 1e-15);
    // The previous-token score averages every query 1 .. 4, query 1's previous key being BOS.
    double previous = std::exp(-1.0) / (std::exp(-1.0) + 1) / 4;
    for (int m = 2; m <= 4; ++m) previous += std::exp(2.0) / (std::exp(-1.0) + std::exp(2.0) + (m - 1)) / 4;
    BOOST_TEST(std::abs(p.previous - previous) < 1e-15);
    // The same kernel in intervals: the certified mass encloses the prediction.
    head_kernel<interval> ki;
    ki.positions = 4;
    for (const double s : k.by_offset) ki.by_offset.push_back(interval(s));
    ki.bos.assign(5, interval(-1.0));
    const auto one = mass_on_offsets(ki, 2, {1}, false), on_bos = mass_on_offsets(ki, 2, {}, true);
    BOOST_TEST((one.lo() <= offset1 && offset1 <= one.hi()));
    BOOST_TEST((on_bos.lo() <= bos && bos <= on_bos.hi()));
    BOOST_TEST(one.hi() - one.lo() < 1e-14);
    const auto on_previous = previous_token_mass(ki);
    BOOST_TEST((on_previous.lo() <= previous && previous <= on_previous.hi()));
    BOOST_TEST(on_previous.hi() - on_previous.lo() < 1e-14);
    // Widened by +-0.5 on every content key (a content spread), the lower bound is the worst case:
    // offset 1 at 1.5 against the other content keys at 0.5 and BOS at -1.
    for (std::size_t i = 0; i < ki.by_offset.size(); ++i) ki.by_offset[i] = interval(k.by_offset[i]) + interval(-0.5, 0.5);
    double worst = 0;
    for (int m = 2; m <= 4; ++m) worst += std::exp(1.5) / (std::exp(-1.0) + std::exp(1.5) + (m - 1) * std::exp(0.5)) / 3;
    const auto widened = mass_on_offsets(ki, 2, {1}, false);
    BOOST_TEST(widened.lo() <= worst);
    BOOST_TEST(widened.lo() > worst - 1e-12);
}

BOOST_AUTO_TEST_CASE(the_rope_swing_bound_holds_for_every_offset)
{
    // Random q, k in 4 pairs: the bound (1/sqrt(d)) sum 2 |q_l||k_l| max|sin(delta theta_l / 2)| is at
    // least the largest change of q^T R_{-delta} k / sqrt(d) between any two offsets 0 .. W.
    std::mt19937_64 rng(7);
    std::normal_distribution<double> g;
    const rope_layout layout{8, 8, rope_pairing::rotate_half};
    const std::vector<double> theta{1.0, 0.3, 0.05, 0.001};
    for (int trial = 0; trial < 100; ++trial) {
        std::vector<double> q(8), k(8);
        for (auto& x : q) x = g(rng);
        for (auto& x : k) x = g(rng);
        const std::size_t W = 8;
        double top = -INFINITY, bottom = INFINITY;
        for (std::size_t delta = 0; delta <= W; ++delta) {
            const double s = offset_score(q, k, layout, theta, delta) / std::sqrt(8.0);
            top = std::max(top, s), bottom = std::min(bottom, s);
        }
        const double bound = rope_swing_bound(pair_norms(q, layout), pair_norms(k, layout), theta, W, 8);
        BOOST_TEST(top - bottom <= bound + 1e-12);
    }
}

/// A model whose context is one position leaves the proxy sequence no position past BOS (N = 0):
/// the prediction and the swing read no key that is not there.
BOOST_AUTO_TEST_CASE(a_kernel_without_positions_past_bos_has_no_swing)
{
    head_kernel<double> k;
    k.positions = 0;
    k.by_offset = {0.5};
    k.bos = {0.0};
    BOOST_TEST(positional_swing(k, 8) == 0.0);
    const auto p = predict_attention(k, 8);
    BOOST_TEST(p.first_query == 0u);
    BOOST_TEST(std::abs(p.bos - 1.0) < 1e-15);  // query 0 is BOS itself: its only key
    BOOST_TEST(p.previous == 0.0);               // and it has no previous key
    head_kernel<interval> ki;
    ki.positions = 0, ki.by_offset = {interval(0.5)}, ki.bos = {interval(0.0)};
    BOOST_TEST(previous_token_mass(ki).hi() == 0.0);
}

namespace {
scan::matrix random_matrix(std::size_t rows, std::size_t columns, std::mt19937_64& rng, double scale)
{
    std::normal_distribution<double> g(0, scale);
    scan::matrix m({rows, columns});
    for (auto& x : m) x = g(rng);
    return m;
}
} // namespace

/// With one token to draw, every draw is the same: the sampled attention is the mean field's
/// softmax on an input whose content positions are moved by that token's content (the rotation,
/// the BOS key without content and the query's own token at offset 0 all enter the same way).
BOOST_AUTO_TEST_CASE(sampled_attention_with_one_token_is_the_mean_field_moved_by_its_content)
{
    std::mt19937_64 rng(11);
    model::head_weights h;
    h.w_q = random_matrix(d, D, rng, 0.4), h.w_k = random_matrix(d, D, rng, 0.4);
    constexpr std::size_t N = 12, W = 4;
    proxy_layer input;
    input.normed = random_matrix(N + 1, D, rng, 1.0);
    input.mean = xt::mean(xt::view(input.normed, xt::range(1, N + 1), xt::all()), {0});
    const scan::matrix content = random_matrix(1, D, rng, 0.7);
    const token_contents one{multiply(content, h.w_q, false, true), multiply(content, h.w_k, false, true), {}, {}};
    proxy_layer moved = input;
    for (std::size_t j = 0; j < D; ++j) {
        moved.mean(j) += content(0, j);
        for (std::size_t t = 1; t <= N; ++t) moved.normed(t, j) += content(0, j);
    }
    const std::vector<std::optional<io::rope_config>> schedules{rope(rope_pairing::rotate_half), rope(rope_pairing::interleaved),
                                                                 rope(rope_pairing::rotate_half, 8), std::nullopt};
    for (const bool learned : {false, true}) {
        for (const auto& schedule : schedules) {
            const auto sampled = sampled_attention(h, input, learned, schedule, one, W, 3);
            const auto expected = predict_attention(mean_field_kernel<double>(h, moved, learned, schedule), W);
            BOOST_TEST(std::abs(sampled.bos - expected.bos) < 1e-12);
            BOOST_TEST(std::abs(sampled.previous - expected.previous) < 1e-12);
            for (std::size_t k = 0; k <= W; ++k) BOOST_TEST(std::abs(sampled.by_offset[k] - expected.by_offset[k]) < 1e-12, k);
            BOOST_TEST(sampled.first_query == expected.first_query);
        }
    }
}

/// Content is what a token adds to its position's mean: with positions given, rows are centred on
/// their position's mean, so a position part common to a position's rows leaves no trace.
BOOST_AUTO_TEST_CASE(token_contents_are_centred_per_position_when_positions_are_given)
{
    std::mt19937_64 rng(5);
    model::head_weights h;
    h.w_q = random_matrix(d, D, rng, 1.0), h.w_k = random_matrix(d, D, rng, 1.0);
    const scan::matrix place = random_matrix(2, D, rng, 3.0), token = random_matrix(2, D, rng, 1.0);
    scan::matrix rows({4, D});
    for (std::size_t j = 0; j < D; ++j) {
        rows(0, j) = place(0, j) + token(0, j), rows(1, j) = place(0, j) - token(0, j);
        rows(2, j) = place(1, j) + token(1, j), rows(3, j) = place(1, j) - token(1, j);
    }
    const auto c = project_token_contents(h, rows, 16, {1, 1, 2, 2});
    const scan::matrix expected_q = multiply(token, h.w_q, false, true);
    for (std::size_t i = 0; i < d; ++i) {
        BOOST_TEST(std::abs(c.queries(0, i) - expected_q(0, i)) < 1e-12);
        BOOST_TEST(std::abs(c.queries(1, i) + expected_q(0, i)) < 1e-12);
        BOOST_TEST(std::abs(c.queries(2, i) - expected_q(1, i)) < 1e-12);
    }
    // Without positions, the common mean goes and the position parts stay in the content.
    const auto global = project_token_contents(h, rows, 16);
    double moved = 0;
    for (std::size_t i = 0; i < d; ++i) moved += std::abs(global.queries(0, i) - expected_q(0, i));
    BOOST_TEST(moved > 1e-3);
    BOOST_CHECK_THROW(project_token_contents(h, rows, 16, {1, 2}), std::invalid_argument);
    BOOST_CHECK_THROW(project_token_contents(h, scan::matrix({0, D}), 16), std::invalid_argument);
    // Given predecessors, each sampled row's predecessor's key content, centred the same way.
    const auto paired = project_token_contents(h, rows, 16, {1, 1, 2, 2}, {no_predecessor, 0, no_predecessor, 2});
    BOOST_TEST((paired.after == std::vector<bool>{false, true, false, true}));
    for (std::size_t i = 0; i < d; ++i) {
        BOOST_TEST(std::abs(paired.previous_keys(1, i) - paired.keys(0, i)) < 1e-12);
        BOOST_TEST(std::abs(paired.previous_keys(3, i) - paired.keys(2, i)) < 1e-12);
        BOOST_TEST(paired.previous_keys(0, i) == 0.0);
    }
    BOOST_CHECK_THROW(project_token_contents(h, rows, 16, {}, {0, 1}), std::invalid_argument);
    BOOST_CHECK_THROW(project_token_contents(h, rows, 16, {}, {0, 1, 2, 9}), std::invalid_argument);
}

/// The key before a query is the query token's own predecessor: rows whose query reads what their
/// predecessor's key holds (as when an earlier head copied the previous token in) attend more to the
/// previous key than independent draws say; with no row after a token the draws are the independent
/// ones, to the bit.
BOOST_AUTO_TEST_CASE(the_key_before_a_query_is_its_own_predecessor)
{
    // d = D = 4; the query reads coordinates 0, 1, the key 2, 3; row i holds 3 y_{i-1} where the
    // query reads and y_i where the key reads, so q_i . k_{i-1} = 3 |y_{i-1}|^2.
    constexpr std::size_t width = 4, S = 60, N = 10, W = 4;
    std::mt19937_64 rng(13);
    std::normal_distribution<double> g;
    model::head_weights h;
    h.w_q = xt::zeros<double>({width, width}), h.w_k = xt::zeros<double>({width, width});
    h.w_q(0, 0) = h.w_q(1, 1) = 1, h.w_k(0, 2) = h.w_k(1, 3) = 1;
    scan::matrix rows = xt::zeros<double>({S, width});
    std::vector<std::size_t> predecessor(S, no_predecessor);
    for (std::size_t i = 0; i < S; ++i) {
        rows(i, 2) = g(rng), rows(i, 3) = g(rng);
        if (i % 6 != 0) predecessor[i] = i - 1, rows(i, 0) = 3 * rows(i - 1, 2), rows(i, 1) = 3 * rows(i - 1, 3);  // runs of 6
    }
    proxy_layer input{xt::zeros<double>({N + 1, width}), xt::zeros<double>({width})};
    const auto independent = sampled_attention(h, input, false, std::nullopt, project_token_contents(h, rows, S), W, 32);
    const auto paired = sampled_attention(h, input, false, std::nullopt, project_token_contents(h, rows, S, {}, predecessor), W, 32);
    BOOST_TEST(paired.previous > independent.previous + 0.2, paired.previous << " against " << independent.previous);
    BOOST_TEST(paired.by_offset[1] > independent.by_offset[1] + 0.2);
    // No row after a token: every query drawn from all rows, every key independent, as without predecessors.
    const auto alone = sampled_attention(h, input, false, std::nullopt,
                                         project_token_contents(h, rows, S, {}, std::vector<std::size_t>(S, no_predecessor)), W, 32);
    BOOST_TEST(alone.previous == independent.previous);
    BOOST_TEST(alone.bos == independent.bos);
    for (std::size_t k = 0; k <= W; ++k) BOOST_TEST(alone.by_offset[k] == independent.by_offset[k]);
}
