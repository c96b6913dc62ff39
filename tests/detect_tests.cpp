// Head detection (include/qkov/detect): the repeated-token sequences, the statistics over samples
// on planted patterns whose scores are known in closed form, the behaviour rule, the comparison
// with weight labels rule by rule, the BOS token each model file declares, and stories260K's
// previous-token heads through the real forward pass.
#define BOOST_TEST_MODULE detect
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/detect/example_patterns.hpp"
#include "qkov/detect/head_detection.hpp"
#include "qkov/detect/repeated_tokens.hpp"
#include "qkov/detect/weights_vs_behaviour.hpp"
#include "qkov/io/model_config.hpp"
#include "qkov/model/open_model.hpp"
#include "error_text.hpp"
#include "shared_dir.hpp"

using namespace qkov;
using detect::token_id;

namespace {

using test::contains;
using test::error_of;

/// A pattern source whose heads make chosen patterns, so every score is known in closed form.
/// Layer 0: head 0 attends to the previous token, head 1 to the earlier copy of its token (BOS when
/// there is none). Layer 1: head 0 to the token after that copy (BOS when none), head 1 uniformly
/// over the causal prefix. Layer 2 head 0 puts weight a_s on the previous token and 1 - a_s on BOS
/// in sample s (row 0: all on BOS), layer 2 head 1 attends to BOS only. Layer 3: head 0 two tokens
/// back (BOS for rows 0 and 1), head 1 two after the earlier copy of its token (BOS when none).
///
/// Values are one-hot tokens (d = the vocabulary), so a head's output before W_o is the attention
/// it gives each token; head_unembedding makes head 0.0 copy (identity), head 0.1 suppress
/// (minus identity), head 1.0 copy only tokens below copied_below, every other head write nothing.
struct planted_pass {
    using scalar = double;
    static constexpr std::size_t copied_below = 20;
    io::model_config c;
    std::vector<double> previous_weight_per_sample;
    mutable std::size_t calls = 0;

    planted_pass()
    {
        c.layers = 4, c.heads = 2, c.vocab_size = 40, c.bos_token_id = 3;
    }
    [[nodiscard]] const io::model_config& config() const { return c; }

    [[nodiscard]] forward::tensor2<double> head_unembedding(std::size_t l, std::size_t h) const
    {
        forward::tensor2<double> u = xt::zeros<double>({c.vocab_size, c.vocab_size});
        for (std::size_t t = 0; t < c.vocab_size; ++t) {
            if (l == 0) u(t, t) = h == 0 ? 1.0 : -1.0;
            if (l == 1 && h == 0 && t < copied_below) u(t, t) = 1.0;
        }
        return u;
    }

    int residual_stream(std::span<const token_id> t, const forward::pattern_visitor<double>& visit,
                        const forward::value_visitor<double>& visit_values = {}) const
    {
        const std::size_t n = t.size(), r = (n - 1) / 2;
        const double a = previous_weight_per_sample.empty() ? 0.5 : previous_weight_per_sample.at(calls);
        ++calls;
        forward::tensor2<double> values = xt::zeros<double>({n, std::size_t{c.vocab_size}});
        for (std::size_t j = 0; j < n; ++j) values(j, t[j]) = 1;
        const auto emit = [&](std::size_t l, std::size_t h, const forward::tensor2<double>& p) {
            if (visit) visit(l, h, p);
            if (visit_values) visit_values(l, h, p, values);
        };
        const auto one_hot = [n](auto target) {
            forward::tensor2<double> p = xt::zeros<double>({n, n});
            for (std::size_t i = 0; i < n; ++i) p(i, target(i)) = 1;
            return p;
        };
        emit(0, 0, one_hot([](std::size_t i) { return i == 0 ? 0 : i - 1; }));
        emit(0, 1, one_hot([r](std::size_t i) { return i > r ? i - r : 0; }));
        emit(1, 0, one_hot([r](std::size_t i) { return i > r ? i - r + 1 : 0; }));
        forward::tensor2<double> uniform = xt::zeros<double>({n, n});
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) uniform(i, j) = 1.0 / double(i + 1);
        emit(1, 1, uniform);
        forward::tensor2<double> mixed = xt::zeros<double>({n, n});
        mixed(0, 0) = 1;
        for (std::size_t i = 1; i < n; ++i) mixed(i, i - 1) += a, mixed(i, 0) += 1 - a;
        emit(2, 0, mixed);
        emit(2, 1, one_hot([](std::size_t) { return std::size_t{0}; }));
        emit(3, 0, one_hot([](std::size_t i) { return i < 2 ? 0 : i - 2; }));
        emit(3, 1, one_hot([r](std::size_t i) { return i > r ? i - r + 2 : 0; }));
        return 0;
    }
};

/// The pattern source above without values: what a source that cannot show copying looks like.
struct planted_patterns_only {
    using scalar = double;
    planted_pass pass;
    [[nodiscard]] const io::model_config& config() const { return pass.config(); }
    int residual_stream(std::span<const token_id> t, const forward::pattern_visitor<double>& visit) const { return pass.residual_stream(t, visit); }
};

/// The behaviours among TransformerLens' three that a head shows.
std::vector<std::string> tl_behaviours(const detect::head_behaviour& h)
{
    std::vector<std::string> out;
    for (const char* b : detect::behaviour_names)
        if (h.shows(b)) out.emplace_back(b);
    return out;
}

const detect::head_behaviour& at(const detect::detection_result& r, std::size_t layer, std::size_t head) { return r.per_head.at(layer * r.heads + head); }

} // namespace

BOOST_AUTO_TEST_CASE(repeated_tokens_are_bos_then_distinct_tokens_twice)
{
    std::mt19937_64 rng(7);
    const auto t = detect::repeated_random_tokens(12, 20, 5, rng);
    BOOST_TEST(t.size() == 25u);
    BOOST_TEST(t[0] == 5u);
    const std::set<token_id> distinct(t.begin() + 1, t.begin() + 13);
    BOOST_TEST(distinct.size() == 12u);
    BOOST_TEST(!distinct.contains(5));
    BOOST_TEST(*distinct.rbegin() < 20u);
    for (std::size_t i = 1; i <= 12; ++i) BOOST_TEST(t[i] == t[i + 12]);
    // Every id but BOS once: the whole vocabulary is reachable.
    std::mt19937_64 all(1);
    const auto full = detect::repeated_random_tokens(19, 20, 5, all);
    BOOST_TEST(std::set<token_id>(full.begin() + 1, full.begin() + 20).size() == 19u);
}

BOOST_AUTO_TEST_CASE(repeated_tokens_follow_the_seed)
{
    std::mt19937_64 a(42), b(42), c(43);
    const auto first = detect::repeated_random_tokens(30, 1000, 0, a);
    BOOST_TEST((first == detect::repeated_random_tokens(30, 1000, 0, b)));
    BOOST_TEST((first != detect::repeated_random_tokens(30, 1000, 0, c)));
    BOOST_TEST((first != detect::repeated_random_tokens(30, 1000, 0, a)));  // the next sample differs
}

// The draw is the same on every platform: the tokens below come from a separate implementation
// of the documented algorithm (mt19937_64 from its published parameters, anchored on the
// standard's required 10000th output 9981545732273789042; rejection below max - max % bound;
// partial Fisher-Yates over the ids without BOS), not from this library. Two samples from one
// generator, GPT-2's vocabulary and BOS.
BOOST_AUTO_TEST_CASE(repeated_tokens_are_pinned_to_an_independent_draw)
{
    std::mt19937_64 rng(2024);
    const std::vector<token_id> first{13510, 42205, 17349, 20224, 50160, 25540, 39172, 8071};
    const std::vector<token_id> second{36986, 23017, 38084, 11894, 34793, 36009, 16806, 29042};
    for (const auto* expected : {&first, &second}) {
        const auto t = detect::repeated_random_tokens(8, 50257, 50256, rng);
        std::vector<token_id> whole{50256};
        for (int copy = 0; copy < 2; ++copy) whole.insert(whole.end(), expected->begin(), expected->end());
        BOOST_TEST(t == whole, boost::test_tools::per_element());
    }
}

BOOST_AUTO_TEST_CASE(bounded_draws_stay_below_the_bound_and_reach_every_value)
{
    std::mt19937_64 rng(3);
    std::vector<int> seen(7, 0);
    for (int i = 0; i < 700; ++i) {
        const auto x = detect::uniform_below(rng, 7);
        BOOST_TEST_REQUIRE(x < 7u);
        ++seen[x];
    }
    for (int count : seen) BOOST_TEST(count > 50);
    BOOST_TEST(detect::uniform_below(rng, 1) == 0u);
}

BOOST_AUTO_TEST_CASE(repeated_tokens_refuse_what_cannot_be_drawn)
{
    std::mt19937_64 rng(0);
    BOOST_TEST(contains(error_of([&] { (void)detect::repeated_random_tokens(5, 10, 10, rng); }), "BOS token 10 is outside the vocabulary of 10"));
    BOOST_TEST(contains(error_of([&] { (void)detect::repeated_random_tokens(0, 10, 1, rng); }), "at least one random token"));
    BOOST_TEST(contains(error_of([&] { (void)detect::repeated_random_tokens(10, 10, 1, rng); }), "10 distinct random tokens, but the vocabulary has 9 besides BOS"));
    BOOST_TEST(error_of([&] { (void)detect::repeated_random_tokens(9, 10, 1, rng); }) == "(no error)");
}

// |r| = 6, n = 13. Closed forms: a previous-token head (n - 1)/n, duplicate and induction heads
// |r|/n; the uniform head's previous-token score (1/n) sum_{i=1}^{n-1} 1/(i+1), its duplicate and
// induction scores (1/n) sum over the second copy's queries i = r+1..2r of 1/(i+1).
BOOST_AUTO_TEST_CASE(planted_heads_score_their_closed_forms)
{
    const planted_pass pass;
    detect::detection_options o;
    o.length = 6, o.samples = 3;
    std::size_t progress = 0;
    std::size_t announced_total = 0;
    o.on_sample = [&](std::size_t done, std::size_t total) { progress = done, announced_total = total; };
    const auto r = detect::detect_heads(pass, o);
    BOOST_TEST(progress == 3u);
    BOOST_TEST(announced_total == 3u);
    BOOST_TEST(r.bos == 3u);
    BOOST_TEST(r.per_head.size() == 8u);
    std::mt19937_64 first(0);  // the default seed's first draw
    BOOST_TEST((r.first_sequence == detect::repeated_random_tokens(6, 40, 3, first)));
    const double n = 13, tol = 1e-14;
    BOOST_TEST(r.attainable[0] == 12 / n, boost::test_tools::tolerance(tol));
    BOOST_TEST(r.attainable[1] == 6 / n, boost::test_tools::tolerance(tol));
    BOOST_TEST(at(r, 0, 0).previous_token.mean == 12 / n, boost::test_tools::tolerance(tol));
    BOOST_TEST(at(r, 0, 1).duplicate_token.mean == 6 / n, boost::test_tools::tolerance(tol));
    BOOST_TEST(at(r, 0, 1).induction.mean == 0.0);
    BOOST_TEST(at(r, 1, 0).induction.mean == 6 / n, boost::test_tools::tolerance(tol));
    BOOST_TEST(at(r, 1, 0).duplicate_token.mean == 0.0);
    double uniform_previous = 0, uniform_copy = 0;
    for (int i = 1; i <= 12; ++i) uniform_previous += 1.0 / (i + 1);
    for (int i = 7; i <= 12; ++i) uniform_copy += 1.0 / (i + 1);
    BOOST_TEST(at(r, 1, 1).previous_token.mean == uniform_previous / n, boost::test_tools::tolerance(tol));
    BOOST_TEST(at(r, 1, 1).duplicate_token.mean == uniform_copy / n, boost::test_tools::tolerance(tol));
    BOOST_TEST(at(r, 1, 1).induction.mean == uniform_copy / n, boost::test_tools::tolerance(tol));
    // These patterns do not depend on the draw: no spread.
    BOOST_TEST(at(r, 0, 0).previous_token.spread == 0.0, boost::test_tools::tolerance(1e-15));
    // Behaviours: half the attainable score.
    BOOST_TEST((tl_behaviours(at(r, 0, 0)) == std::vector<std::string>{"previous_token"}));
    BOOST_TEST((tl_behaviours(at(r, 0, 1)) == std::vector<std::string>{"duplicate_token"}));
    BOOST_TEST((tl_behaviours(at(r, 1, 0)) == std::vector<std::string>{"induction"}));
    BOOST_TEST(tl_behaviours(at(r, 1, 1)).empty());  // 0.18 < 12/26 and 0.058 < 6/26
    BOOST_TEST(tl_behaviours(at(r, 2, 1)).empty());  // BOS only: row 1's previous token is BOS, 1/13
    BOOST_TEST(at(r, 2, 1).previous_token.mean == 1 / n, boost::test_tools::tolerance(tol));
}

// A head whose previous-token weight is a_s in sample s scores (1 + (n - 2) a_s) / n (row 1's
// previous token is BOS, where all of its weight is): the mean and the sample standard deviation
// over a = 0.2, 0.4, 0.9 follow.
BOOST_AUTO_TEST_CASE(mean_and_spread_over_samples)
{
    planted_pass pass;
    pass.previous_weight_per_sample = {0.2, 0.4, 0.9};
    detect::detection_options o;
    o.length = 6, o.samples = 3;
    const auto r = detect::detect_heads(pass, o);
    const double n = 13;
    std::vector<double> s;
    for (double a : pass.previous_weight_per_sample) s.push_back((1 + (n - 2) * a) / n);
    const double mean = (s[0] + s[1] + s[2]) / 3;
    const double spread = std::sqrt(((s[0] - mean) * (s[0] - mean) + (s[1] - mean) * (s[1] - mean) + (s[2] - mean) * (s[2] - mean)) / 2);
    BOOST_TEST(at(r, 2, 0).previous_token.mean == mean, boost::test_tools::tolerance(1e-14));
    BOOST_TEST(at(r, 2, 0).previous_token.spread == spread, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(at(r, 2, 0).shows("previous_token"));  // 0.538 >= 6/13
    // One sample: no spread.
    planted_pass once;
    o.samples = 1;
    BOOST_TEST(at(detect::detect_heads(once, o), 2, 0).previous_token.spread == 0.0);
}

// |r| = 12, n = 25, so no repeat target is within largest_offset = 8 of its query (the duplicate
// head is not an offset head on these sequences). Hand-computed:
//   sink head 2.1: BOS 1; of the offsets only A[8, 0] = offset 8 at query 8: 1/17 (queries 8 .. 24);
//   offset-2 head 3.0: offset 2 is 1, every other offset 0; positional (1 + 0 >= 1/2);
//   shifted head 3.1: shift 2 scores |r| / n = 12/25, shifts -1, 0, 1 nothing; its BOS attention is
//     the first copy's 12 of 24 queries, 1/2;
//   uniform head 1.1: BOS (1/24) sum_{i=1}^{24} 1/(i+1), every offset (1/17) sum_{i=8}^{24} 1/(i+1);
//   previous-token head 0.0: offset 1 is 1 (queries >= 8 all have a previous token).
BOOST_AUTO_TEST_CASE(planted_heads_show_sink_offset_and_shifted_repeat_attention)
{
    const planted_pass pass;
    detect::detection_options o;
    o.length = 12, o.samples = 2;
    const auto r = detect::detect_heads(pass, o);
    const double n = 25, tol = 1e-14;
    BOOST_TEST(at(r, 2, 1).bos.mean == 1.0, boost::test_tools::tolerance(tol));
    BOOST_TEST(at(r, 2, 1).by_offset[8].mean == 1 / 17.0, boost::test_tools::tolerance(tol));
    BOOST_TEST(at(r, 2, 1).by_offset[0].mean == 0.0);
    BOOST_TEST(at(r, 2, 1).shows("sink"));
    BOOST_TEST(!at(r, 2, 1).shows("positional"));
    BOOST_TEST(at(r, 3, 0).by_offset[2].mean == 1.0, boost::test_tools::tolerance(tol));
    for (std::size_t k : {0, 1, 3, 8}) BOOST_TEST(at(r, 3, 0).by_offset[k].mean == 0.0, k);
    BOOST_TEST(at(r, 3, 0).shows("offset_2"));
    BOOST_TEST(at(r, 3, 0).shows("positional"));
    BOOST_TEST(!at(r, 3, 0).shows("previous_token"));
    BOOST_TEST(!at(r, 3, 0).shows("sink"));  // BOS only for rows 1 and 2 of 24: 1/12
    BOOST_TEST(at(r, 3, 0).bos.mean == 2 / 24.0, boost::test_tools::tolerance(tol));
    BOOST_TEST(at(r, 3, 1).shift(2).mean == 12 / n, boost::test_tools::tolerance(tol));
    for (int s : {-1, 0, 1}) BOOST_TEST(at(r, 3, 1).shift(s).mean == 0.0, s);
    BOOST_TEST(at(r, 3, 1).bos.mean == 0.5, boost::test_tools::tolerance(tol));
    BOOST_TEST(at(r, 3, 1).shows("shifted_induction"));
    BOOST_TEST(!at(r, 3, 1).shows("induction"));
    // Shifts 0 and 1 are the duplicate-token and induction scores.
    BOOST_TEST(at(r, 0, 1).shift(0).mean == at(r, 0, 1).duplicate_token.mean);
    BOOST_TEST(at(r, 1, 0).shift(1).mean == at(r, 1, 0).induction.mean);
    BOOST_TEST(!at(r, 1, 0).shows("shifted_induction"));
    double bos = 0, offset = 0;
    for (int i = 1; i <= 24; ++i) bos += 1.0 / (i + 1);
    for (int i = 8; i <= 24; ++i) offset += 1.0 / (i + 1);
    BOOST_TEST(at(r, 1, 1).bos.mean == bos / 24, boost::test_tools::tolerance(tol));
    for (std::size_t k = 0; k <= 8; ++k) BOOST_TEST(at(r, 1, 1).by_offset[k].mean == offset / 17, boost::test_tools::tolerance(tol));
    BOOST_TEST(at(r, 0, 0).by_offset[1].mean == 1.0, boost::test_tools::tolerance(tol));
    BOOST_TEST(at(r, 0, 0).shows("positional"));
    BOOST_TEST(detect::top_two_offsets(at(r, 1, 1)) == 2 * offset / 17, boost::test_tools::tolerance(tol));
}

// Copying through the planted unembeddings: head 0.0 (previous token, identity) ranks its
// attended token first at every query from 2 on (query 1's top key is BOS): n - 2 queries a sample.
// Head 0.1 (earlier copy, minus identity) puts it last at the second copy's |r| queries. Head 1.0
// (induction, identity below 20) attends to every token of r once per sample, so its share is the
// tokens of r below 20 over |r|, counted here from the draws. A head with all-zero logits ties
// everywhere and is neither (head 3.0, two back: queries 3 .. 24). Without values (a source that cannot give them) nothing is measured.
BOOST_AUTO_TEST_CASE(planted_heads_copy_and_suppress_through_their_logits)
{
    const planted_pass pass;
    detect::detection_options o;
    o.length = 12, o.samples = 3, o.seed = 5;
    const auto r = detect::detect_heads(pass, o);
    BOOST_TEST_REQUIRE(at(r, 0, 0).copying.has_value());
    BOOST_TEST(at(r, 0, 0).copying->queries == 3u * 23u);
    BOOST_TEST(at(r, 0, 0).copying->top1_share() == 1.0);
    BOOST_TEST(at(r, 0, 0).copying->bottom_share() == 0.0);
    BOOST_TEST(at(r, 0, 0).shows("copy"));
    BOOST_TEST(at(r, 0, 1).copying->queries == 3u * 12u);
    BOOST_TEST(at(r, 0, 1).copying->bottom_share() == 1.0);
    BOOST_TEST(at(r, 0, 1).copying->top1_share() == 0.0);
    BOOST_TEST(at(r, 0, 1).shows("copy_suppression"));
    BOOST_TEST(!at(r, 0, 1).shows("copy"));
    std::mt19937_64 rng(5);
    std::size_t below = 0;
    for (int s = 0; s < 3; ++s) {
        const auto t = detect::repeated_random_tokens(12, 40, 3, rng);
        for (std::size_t i = 1; i <= 12; ++i) below += t[i] < planted_pass::copied_below ? 1 : 0;
    }
    BOOST_TEST(at(r, 1, 0).copying->queries == 3u * 12u);
    BOOST_TEST(at(r, 1, 0).copying->top1 == below);
    BOOST_TEST(at(r, 1, 0).shows("copy") == (2 * below >= 36));
    BOOST_TEST(at(r, 3, 0).copying->top1 == 0u);
    BOOST_TEST(at(r, 3, 0).copying->bottom == 0u);
    BOOST_TEST(at(r, 3, 0).copying->queries == 3u * 22u);  // rows 0, 1, 2 attend to BOS
    const auto without = detect::detect_heads(planted_patterns_only{}, o);
    BOOST_TEST(!at(without, 0, 0).copying.has_value());
    BOOST_TEST(!at(without, 0, 0).shows("copy"));
    BOOST_TEST(at(without, 0, 0).previous_token.mean == at(r, 0, 0).previous_token.mean);
}

BOOST_AUTO_TEST_CASE(detection_refuses_what_it_cannot_run)
{
    planted_pass pass;
    detect::detection_options o;
    o.length = 6, o.samples = 0;
    BOOST_TEST(contains(error_of([&] { (void)detect::detect_heads(pass, o); }), "at least one sample"));
    o.samples = 1, o.behaviour_fraction = 1.5;
    BOOST_TEST(contains(error_of([&] { (void)detect::detect_heads(pass, o); }), "fraction in (0, 1]"));
    o.behaviour_fraction = 0.5;
    pass.c.bos_token_id.reset();
    BOOST_TEST(contains(error_of([&] { (void)detect::detect_heads(pass, o); }), "declares no BOS token (bos_token_id); name one with --bos"));
    o.bos = 2;
    BOOST_TEST(detect::detect_heads(pass, o).bos == 2u);
}

// One head per rule of docs/DETECT.md, and the counts.
BOOST_AUTO_TEST_CASE(weight_labels_against_behaviour_rule_by_rule)
{
    detect::detection_result r;
    r.layers = 1, r.heads = 8;
    const std::vector<std::vector<std::string>> shown{{"previous_token"}, {}, {"previous_token"}, {"induction"}, {"duplicate_token"},
                                                      {"previous_token"}, {}, {"induction"}};
    for (std::size_t h = 0; h < 8; ++h) {
        detect::head_behaviour b;
        b.head = h, b.induction.mean = 0.4, b.behaviours = shown[h];
        r.per_head.push_back(b);
    }
    const std::vector<detect::weight_labels> scanned{
        {0, 0, {"positional", "previous_token"}},  // both confirmed
        {0, 1, {"previous_token"}},                // contradicted: not shown
        {0, 2, {"offset_3"}},                      // contradicted: offset 1 instead
        {0, 3, {"positional", "copy"}},            // positional contradicted by induction; copy not tested
        {0, 4, {"semantic"}},                      // confirmed by duplicate_token
        {0, 5, {"semantic"}},                      // contradicted by previous_token
        {0, 6, {"semantic", "offset_0"}},          // neither shown: not tested twice
        {0, 7, {}},                                // induction without a weight label
    };
    const auto c = detect::compare_weights_with_behaviour(scanned, r);
    const auto verdict_of = [&](std::size_t head, const std::string& label) {
        for (const auto& v : c.verdicts)
            if (v.head == head && v.label == label) return v.outcome;
        BOOST_FAIL("no verdict for " + label);
        return detect::verdict::not_tested;
    };
    using detect::verdict;
    BOOST_TEST((verdict_of(0, "positional") == verdict::confirmed));
    BOOST_TEST((verdict_of(0, "previous_token") == verdict::confirmed));
    BOOST_TEST((verdict_of(1, "previous_token") == verdict::contradicted));
    BOOST_TEST((verdict_of(2, "offset_3") == verdict::contradicted));
    BOOST_TEST((verdict_of(3, "positional") == verdict::contradicted));
    BOOST_TEST((verdict_of(3, "copy") == verdict::not_tested));
    BOOST_TEST((verdict_of(4, "semantic") == verdict::confirmed));
    BOOST_TEST((verdict_of(5, "semantic") == verdict::contradicted));
    BOOST_TEST((verdict_of(6, "semantic") == verdict::not_tested));
    BOOST_TEST((verdict_of(6, "offset_0") == verdict::not_tested));
    BOOST_TEST(c.confirmed == 3u);
    BOOST_TEST(c.contradicted == 4u);
    BOOST_TEST(c.not_tested == 3u);
    BOOST_TEST(c.heads_compared == 8u);
    // Unexplained: head 2's previous_token (offset_3 does not predict it), head 3's induction,
    // head 5's previous_token, head 7's induction.
    BOOST_TEST(c.unexplained.size() == 4u);
    std::set<std::pair<std::size_t, std::string>> unexplained;
    for (const auto& u : c.unexplained) unexplained.emplace(u.head, u.behaviour);
    BOOST_TEST(unexplained.contains({2, "previous_token"}));
    BOOST_TEST(unexplained.contains({3, "induction"}));
    BOOST_TEST(unexplained.contains({5, "previous_token"}));
    BOOST_TEST(unexplained.contains({7, "induction"}));
    // A head the scan did not cover is not compared.
    BOOST_TEST(detect::compare_weights_with_behaviour({{0, 9, {"semantic"}}}, r).heads_compared == 0u);
}

BOOST_AUTO_TEST_CASE(bos_token_as_each_file_declares_it)
{
    const auto shared = test::shared_dir_or_skip("fixtures/models");
    if (shared.empty()) return;
    BOOST_TEST((model::open_model(shared / "gpt2").config().bos_token_id == std::optional<std::size_t>(0)));
    BOOST_TEST((model::open_model(shared / "llama").config().bos_token_id == std::optional<std::size_t>(1)));
    const auto real = test::shared_dir_or_skip("real_models");
    if (real.empty()) return;
    BOOST_TEST((model::open_model(real / "gpt2-small-attention").config().bos_token_id == std::optional<std::size_t>(50256)));
    for (const char* file : {"llama2c-stories260K/stories260K.gguf", "llama2c-stories260K/stories260K.bin", "llama2c-stories260K/hf"})
        BOOST_TEST((model::open_model(real / file).config().bos_token_id == std::optional<std::size_t>(1)), file);
    // A config's bos_token_id must be a token of the vocabulary.
    nlohmann::json j = {{"model_type", "llama"}, {"hidden_size", 8}, {"num_hidden_layers", 1}, {"num_attention_heads", 2}, {"vocab_size", 10}};
    BOOST_TEST(!io::parse_model_config(j, "config.json").bos_token_id.has_value());
    j["bos_token_id"] = 10;
    BOOST_TEST(contains(error_of([&] { (void)io::parse_model_config(j, "config.json"); }), "\"bos_token_id\" 10 is outside the vocabulary of 10"));
    j["bos_token_id"] = "1";
    BOOST_TEST(contains(error_of([&] { (void)io::parse_model_config(j, "config.json"); }), "\"bos_token_id\" is not a non-negative integer"));
    j["bos_token_id"] = nullptr;  // transformers writes null for "none"
    BOOST_TEST(!io::parse_model_config(j, "config.json").bos_token_id.has_value());
}

// stories260K through the real forward pass (float32): layer 1 head 3 and layer 3 head 6 attend to
// the previous token, no head shows induction (the model has 5 layers of 8 heads and was trained
// on short stories; tests/forward_tests.cpp sees the same on one hand-written sequence).
BOOST_AUTO_TEST_CASE(stories260k_previous_token_heads_from_its_forward_pass)
{
    const auto dir = test::shared_dir_or_skip("real_models/llama2c-stories260K");
    if (dir.empty()) return;
    const auto model = model::open_model(dir / "stories260K.bin");
    const forward::decoder<float> pass(model);
    detect::detection_options o;
    o.length = 20, o.samples = 4, o.seed = 11;
    const auto r = detect::detect_heads(pass, o);
    BOOST_TEST(r.bos == 1u);
    BOOST_TEST(at(r, 1, 3).shows("previous_token"));
    BOOST_TEST(at(r, 3, 6).shows("previous_token"));
    for (const auto& h : r.per_head) BOOST_TEST(!h.shows("induction"), h.layer << "." << h.head);
    // The example pattern of the strongest previous-token head: the first sample's tokens, causal rows summing to 1.
    const auto examples = detect::example_patterns(pass, r);
    BOOST_TEST_REQUIRE(!examples.empty());
    BOOST_TEST(examples[0].behaviour == "previous_token");
    std::mt19937_64 rng(11);
    BOOST_TEST((examples[0].tokens == detect::repeated_random_tokens(20, 512, 1, rng)));
    const std::size_t n = examples[0].tokens.size();
    BOOST_TEST_REQUIRE(examples[0].pattern.size() == n * n);
    for (std::size_t i = 0; i < n; ++i) {
        double row = 0;
        for (std::size_t j = 0; j < n; ++j) row += examples[0].pattern[i * n + j];
        BOOST_TEST(row == 1.0, boost::test_tools::tolerance(1e-5));
        for (std::size_t j = i + 1; j < n; ++j) BOOST_TEST(examples[0].pattern[i * n + j] == 0.0);
    }
}
