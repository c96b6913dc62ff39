// Head detection (include/qkov/detect): the repeated-token sequences, the statistics over samples
// on planted patterns whose scores are known in closed form, the behaviour rule, the comparison
// with weight labels rule by rule, the BOS token each model file declares, and stories260K's
// previous-token heads through the real forward pass.
#define BOOST_TEST_MODULE detect
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "qkov/detect/detection_figures.hpp"
#include "qkov/detect/detection_json.hpp"
#include "qkov/detect/example_patterns.hpp"
#include "qkov/detect/head_detection.hpp"
#include "qkov/detect/repeated_tokens.hpp"
#include "qkov/detect/scan_labels.hpp"
#include "qkov/detect/weights_vs_behaviour.hpp"
#include "qkov/io/untrusted_json_kept.hpp"
#include "qkov/forward/copy_tally.hpp"
#include "qkov/forward/decoder_weights.hpp"
#include "qkov/forward/forward_pass.hpp"
#include "qkov/forward/norms.hpp"
#include "qkov/io/model_config.hpp"
#include "model_runs.hpp"
#include "error_text.hpp"
#include "shared_dir.hpp"
#include "trained_models_draws.hpp"

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
/// it gives each token; its maps into logits make head 0.0 copy (identity), head 0.1 suppress
/// (minus identity), head 1.0 copy only tokens below copied_below, every other head write nothing.
struct planted_pass {
    using scalar = double;
    static constexpr std::size_t copied_below = 20;
    io::model_config c;
    std::vector<double> previous_weight_per_sample;
    mutable std::size_t calls = 0;

    planted_pass()
    {
        c.layers = 4, c.heads = 2, c.vocab_size = 40, c.head_dim = 40, c.bos_token_id = 3;
    }
    [[nodiscard]] const io::model_config& config() const { return c; }

    [[nodiscard]] std::size_t vocabulary() const { return c.vocab_size; }

    /// The heads' maps into logits side by side (V x H d), handed over block_rows rows at a time.
    void for_each_head_unembedding_block(std::size_t l, const std::function<void(std::size_t, const forward::tensor2<double>&)>& f) const
    {
        const std::size_t V = c.vocab_size, d = c.head_dim;
        for (std::size_t first = 0; first < V; first += block_rows) {
            const std::size_t rows = std::min(block_rows, V - first);
            forward::tensor2<double> u = xt::zeros<double>({rows, c.heads * d});
            for (std::size_t v = 0; v < rows; ++v) {
                const std::size_t t = first + v;
                if (l == 0) u(v, t) = 1.0, u(v, d + t) = -1.0;
                if (l == 1 && t < copied_below) u(v, t) = 1.0;
                if (l == 1 && t == 7 && not_finite) u(v, t) = std::numeric_limits<double>::quiet_NaN();
            }
            f(first, u);
        }
    }
    std::size_t block_rows = 40;
    bool not_finite = false;  ///< head 1.0's logit of token 7 is NaN

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
    // The mean, 0.5, reaches the threshold 6/13, but three sequences this far apart cannot say it
    // does: the 95 % interval, mean +- t(2) spread / sqrt(3) with t(2) = 4.303, holds 6/13.
    const double half = 4.303 * spread / std::sqrt(3.0), threshold = 6.0 / 13;
    BOOST_TEST_REQUIRE((mean >= threshold && mean - half < threshold));
    BOOST_TEST(!at(r, 2, 0).shows("previous_token"));
    BOOST_TEST(at(r, 2, 0).undecided_on("previous_token"));
    // Three sequences that agree: the interval lies above the threshold, and the head shows it.
    planted_pass agreeing;
    agreeing.previous_weight_per_sample = {0.8, 0.85, 0.9};
    const auto shown = detect::detect_heads(agreeing, o);
    BOOST_TEST(at(shown, 2, 0).shows("previous_token"));
    BOOST_TEST(!at(shown, 2, 0).undecided_on("previous_token"));
    // One sample: no spread.
    planted_pass once;
    o.samples = 1;
    BOOST_TEST(at(detect::detect_heads(once, o), 2, 0).previous_token.spread == 0.0);
}

// A rule decides three ways from the mean and its 95 % interval: shown when the interval lies at or
// above the threshold, absent below, undecided when it holds the threshold; a value without spread
// (copying's pooled shares) or a one-sample run is decided by the value alone.
BOOST_AUTO_TEST_CASE(behaviours_are_decided_by_their_interval)
{
    BOOST_TEST(detect::student_t_975(9) == 2.262);  // ten sequences, the default
    BOOST_TEST(detect::student_t_975(1) == 12.706);
    BOOST_TEST(detect::student_t_975(200) == detect::student_t_975(30));  // the table's last value: wider than the true quantile
    const auto rules = detect::behaviour_rules(50, 0.5);
    const auto& sink = *std::find_if(rules.begin(), rules.end(), [](const auto& r) { return r.name == "sink"; });
    detect::head_behaviour h;
    h.bos = {0.33, 0.03};  // half-width 2.262 x 0.03 / sqrt(10) = 0.0215: the interval [0.3085, 0.3515]
    BOOST_TEST(sink.interval_half_width(h, 10) == 2.262 * 0.03 / std::sqrt(10.0), boost::test_tools::tolerance(1e-15));
    BOOST_TEST((sink.decide(h, 10) == detect::behaviour_decision::shown));
    h.bos = {0.32, 0.03};  // [0.2985, 0.3415] holds 0.3
    BOOST_TEST((sink.decide(h, 10) == detect::behaviour_decision::undecided));
    BOOST_TEST((sink.decide(h, 1) == detect::behaviour_decision::shown));  // one sample: the value alone
    h.bos = {0.27, 0.03};  // [0.2485, 0.2915] lies below
    BOOST_TEST((sink.decide(h, 10) == detect::behaviour_decision::absent));
    h.bos = {0.29, 0.03};
    BOOST_TEST((sink.decide(h, 10) == detect::behaviour_decision::undecided));
    // positional: the two largest offsets' sum, with the sum of their spreads (a bound on the sum's).
    const auto& positional = *std::find_if(rules.begin(), rules.end(), [](const auto& r) { return r.name == "positional"; });
    h.by_offset[1] = {0.30, 0.02}, h.by_offset[2] = {0.25, 0.03}, h.by_offset[0] = {0.1, 0.5};
    BOOST_TEST(positional.interval_half_width(h, 10) == 2.262 * 0.05 / std::sqrt(10.0), boost::test_tools::tolerance(1e-15));
    BOOST_TEST((positional.decide(h, 10) == detect::behaviour_decision::shown));  // 0.55 - 0.036 >= 0.5 (offset 0's spread is not in it)
    h.by_offset[2].spread = 0.06;  // 0.55 - 0.057 < 0.5
    BOOST_TEST((positional.decide(h, 10) == detect::behaviour_decision::undecided));
    // copying: pooled over the samples, no spread: the share decides.
    const auto& copy = *std::find_if(rules.begin(), rules.end(), [](const auto& r) { return r.name == "copy"; });
    h.copying = forward::copy_counts{100, 51, 0};
    BOOST_TEST(copy.interval_half_width(h, 10) == 0.0);
    BOOST_TEST((copy.decide(h, 10) == detect::behaviour_decision::shown));
    h.copying.reset();  // not measured: absent, never undecided
    BOOST_TEST((copy.decide(h, 10) == detect::behaviour_decision::absent));
}

// |r| = 12, n = 25, so no repeat target is within largest_offset = 8 of its query (the duplicate
// head is not an offset head on these sequences). Hand-computed:
//   sink head 2.1: BOS 1; of the offsets only A[8, 0] = offset 8 at query 8: 1/17 (queries 8 .. 24);
//   offset-2 head 3.0: offset 2 is 1, every other offset 0; positional (1 + 0 >= 1/2);
//   shifted head 3.1: shift 2 scores |r| / n = 12/25, shifts -1, 0, 1 nothing; it rests on BOS
//     through the first copy (queries 1 .. 12, where BOS attention is measured): 1;
//   uniform head 1.1: BOS (1/12) sum_{i=1}^{12} 1/(i+1), every offset (1/17) sum_{i=8}^{24} 1/(i+1);
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
    BOOST_TEST(!at(r, 3, 0).shows("sink"));  // BOS only for rows 1 and 2 of the first copy's 12: 1/6
    BOOST_TEST(at(r, 3, 0).bos.mean == 2 / 12.0, boost::test_tools::tolerance(tol));
    BOOST_TEST(at(r, 3, 1).shift(2).mean == 12 / n, boost::test_tools::tolerance(tol));
    for (int s : {-1, 0, 1}) BOOST_TEST(at(r, 3, 1).shift(s).mean == 0.0, s);
    BOOST_TEST(at(r, 3, 1).bos.mean == 1.0, boost::test_tools::tolerance(tol));
    BOOST_TEST(at(r, 3, 1).shows("shifted_induction"));
    BOOST_TEST(!at(r, 3, 1).shows("induction"));
    // Shifts 0 and 1 are the duplicate-token and induction scores.
    BOOST_TEST(at(r, 0, 1).shift(0).mean == at(r, 0, 1).duplicate_token.mean);
    BOOST_TEST(at(r, 1, 0).shift(1).mean == at(r, 1, 0).induction.mean);
    BOOST_TEST(!at(r, 1, 0).shows("shifted_induction"));
    double bos = 0, offset = 0;
    for (int i = 1; i <= 12; ++i) bos += 1.0 / (i + 1);
    for (int i = 8; i <= 24; ++i) offset += 1.0 / (i + 1);
    BOOST_TEST(at(r, 1, 1).bos.mean == bos / 12, boost::test_tools::tolerance(tol));
    for (std::size_t k = 0; k <= 8; ++k) BOOST_TEST(at(r, 1, 1).by_offset[k].mean == offset / 17, boost::test_tools::tolerance(tol));
    BOOST_TEST(at(r, 0, 0).by_offset[1].mean == 1.0, boost::test_tools::tolerance(tol));
    BOOST_TEST(at(r, 0, 0).shows("positional"));
    BOOST_TEST(detect::top_two_offsets(at(r, 1, 1)) == 2 * offset / 17, boost::test_tools::tolerance(tol));
    // The repeat heads 0.1 and 1.0 rest on BOS until the first repeat, like 2.1 and 3.1: sinks on
    // the first copy, where BOS attention is measured.
    for (const auto& [l, h] : {std::pair{0, 1}, std::pair{1, 0}}) BOOST_TEST(at(r, l, h).bos.mean == 1.0, boost::test_tools::tolerance(tol));
    // The example pattern of each behaviour is its strongest head's, the first in layer order on a
    // tie: the sink's is 0.1, shifted induction's 3.1, offset 2's 3.0.
    std::map<std::string, std::pair<std::size_t, std::size_t>> strongest;
    for (const auto& e : detect::example_patterns(pass, r)) strongest[e.behaviour] = {e.layer, e.head};
    BOOST_TEST((strongest.at("sink") == std::pair<std::size_t, std::size_t>{0, 1}));
    BOOST_TEST((strongest.at("shifted_induction") == std::pair<std::size_t, std::size_t>{3, 1}));
    BOOST_TEST((strongest.at("offset_2") == std::pair<std::size_t, std::size_t>{3, 0}));
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
    // The sink head 2.1 attends to BOS only: no query reads a token, so copying is not measured on it.
    BOOST_TEST(at(r, 2, 1).copying->queries == 0u);
    BOOST_TEST(!r.rule("copy")->value(at(r, 2, 1)).has_value());
    BOOST_TEST(r.copying_not_measured.empty());
    const auto without = detect::detect_heads(planted_patterns_only{}, o);
    BOOST_TEST(!at(without, 0, 0).copying.has_value());
    BOOST_TEST(!at(without, 0, 0).shows("copy"));
    BOOST_TEST(at(without, 0, 0).previous_token.mean == at(r, 0, 0).previous_token.mean);
    BOOST_TEST(without.copying_not_measured == "the pass gives no values");
    // Outputs kept over the memory allowed: 4 layers x 2 heads x 3 samples of 25 tokens, each a
    // row of d = 40 doubles and its token (4 bytes), are 194400 bytes.
    o.copying_memory = 194399;
    const auto over = detect::detect_heads(pass, o);
    BOOST_TEST(!at(over, 0, 0).copying.has_value());
    BOOST_TEST(contains(over.copying_not_measured, "outputs kept for ranking would take 194400 bytes, over the 194399 allowed"));
    o.copying_memory = 194400;
    BOOST_TEST(at(detect::detect_heads(pass, o), 0, 0).copying.has_value());
    // The maps handed over in blocks of 7 rows (a token's own logit in one block, the others
    // spread over six) rank every query as one block of all 40 does.
    planted_pass in_blocks;
    in_blocks.block_rows = 7;
    const auto blocked = detect::detect_heads(in_blocks, o);
    for (std::size_t l = 0; l < 4; ++l)
        for (std::size_t h = 0; h < 2; ++h) {
            const auto& a = at(r, l, h).copying;
            const auto& b = at(blocked, l, h).copying;
            BOOST_TEST_REQUIRE(b.has_value());
            BOOST_TEST((a->queries == b->queries && a->top1 == b->top1 && a->bottom == b->bottom), "head " << l << "." << h);
        }
    // A logit that is not finite cannot be ranked: an error naming the head, not a count.
    planted_pass poisoned;
    poisoned.not_finite = true;
    BOOST_TEST(contains(error_of([&] { (void)detect::detect_heads(poisoned, o); }), "layer 1 head 0 gives a logit that is not finite"));
}

// Copying ranked with the vocabulary streamed in blocks (forward/copy_tally.hpp) against every
// query's whole row of logits, counted here directly: on GPT-2's and the Llama fixture, one
// sequence, every head, blocks of 5 vocabulary rows. The row's counts follow the definition:
// above = others at least as high, below = others at most as low (ties count against).
BOOST_AUTO_TEST_CASE(copying_ranked_in_vocabulary_blocks_is_the_whole_rows_rank)
{
    const auto shared = test::shared_dir_or_skip("fixtures/models");
    if (shared.empty()) return;
    for (const char* name : {"gpt2", "llama"}) {
        const forward::decoder<double> pass(qkov::runs::open_model(shared / name));
        const auto& c = pass.config();
        std::mt19937_64 rng(11);
        const auto tokens = detect::repeated_random_tokens(6, c.vocab_size, 0, rng);
        forward::copy_tally<double> tally(c.layers, c.heads, c.head_dim);
        std::vector<std::vector<forward::copy_counts>> direct(c.layers, std::vector<forward::copy_counts>(c.heads));
        (void)pass.residual_stream(tokens, {}, [&](std::size_t l, std::size_t h, const forward::tensor2<double>& p, const forward::tensor2<double>& values) {
            tally.add(l, h, p, values, tokens);
            const auto map = pass.head_unembedding(l, h);  // V x d
            const std::size_t n = tokens.size(), V = map.shape()[0], d = c.head_dim;
            for (std::size_t i = 0; i < n; ++i) {
                std::size_t top = 0;
                for (std::size_t j = 1; j <= i; ++j)
                    if (p(i, j) > p(i, top)) top = j;
                if (top == 0) continue;
                std::vector<double> z(d, 0.0), logits(V, 0.0);
                for (std::size_t j = 0; j <= i; ++j)
                    for (std::size_t e = 0; e < d; ++e) z[e] += p(i, j) * values(j, e);
                for (std::size_t v = 0; v < V; ++v)
                    for (std::size_t e = 0; e < d; ++e) logits[v] += map(v, e) * z[e];
                const std::size_t t = tokens[top];
                std::size_t above = 0, below = 0;
                for (std::size_t v = 0; v < V; ++v)
                    if (v != t) above += logits[v] >= logits[t] ? 1 : 0, below += logits[v] <= logits[t] ? 1 : 0;
                auto& k = direct[l][h];
                ++k.queries, k.top1 += above == 0 ? 1 : 0, k.bottom += below < forward::copy_bottom_ranks ? 1 : 0;
            }
        });
        std::size_t queries = 0, top1 = 0, bottom = 0;
        for (std::size_t l = 0; l < c.layers; ++l) {
            const auto counts = tally.count_layer(l, pass.vocabulary(), [&](const auto& f) { pass.for_each_head_unembedding_block(l, f, 5); });
            for (std::size_t h = 0; h < c.heads; ++h) {
                const auto& a = counts[h];
                const auto& b = direct[l][h];
                BOOST_TEST((a.queries == b.queries && a.top1 == b.top1 && a.bottom == b.bottom),
                           name << " head " << l << "." << h << ": " << a.top1 << "/" << a.bottom << " of " << a.queries << " against " << b.top1 << "/"
                                << b.bottom << " of " << b.queries);
                queries += b.queries, top1 += b.top1, bottom += b.bottom;
            }
        }
        BOOST_TEST(queries > 0u, name);
        BOOST_TEST_MESSAGE(name << ": " << queries << " queries, " << top1 << " top-1, " << bottom << " bottom-10");
    }
}

// count_layer takes the heads' maps only as consecutive blocks from row 0 to the vocabulary, each
// H d wide: a producer that skips rows, repeats them, runs past the vocabulary, is too wide or stops
// short is an error, not a count of part of the row.
BOOST_AUTO_TEST_CASE(copying_refuses_maps_out_of_order_or_short)
{
    forward::copy_tally<double> tally(1, 1, 2);
    const forward::tensor2<double> pattern = {{1.0, 0.0}, {0.0, 1.0}};  // query 1 rests on key 1, which holds token 3
    const forward::tensor2<double> values = {{1.0, 0.0}, {0.0, 1.0}};
    const std::vector<forward::token_id> tokens{0, 3};
    tally.add(0, 0, pattern, values, tokens);
    using blocks = std::vector<std::pair<std::size_t, forward::tensor2<double>>>;
    const auto ones = [](std::size_t rows, std::size_t width) { return forward::tensor2<double>(xt::ones<double>({rows, width})); };
    const auto count = [&](const blocks& b, std::size_t vocabulary) {
        return tally.count_layer(0, vocabulary, [&](const auto& f) {
            for (const auto& [first, maps] : b) f(first, maps);
        });
    };
    const auto error = [&](const blocks& b) { return error_of([&] { (void)count(b, 6); }); };
    // In order: one kept query, every logit equal (a tie is not first), among the 10 lowest as any
    // token of 6 is.
    const auto counts = count({{0, ones(3, 2)}, {3, ones(3, 2)}}, 6);
    BOOST_TEST_REQUIRE(counts.size() == 1u);
    BOOST_TEST((counts[0].queries == 1u && counts[0].top1 == 0u && counts[0].bottom == 1u));
    BOOST_TEST(contains(error({{0, ones(3, 2)}, {4, ones(2, 2)}}), "out of order"));  // row 3 skipped
    BOOST_TEST(contains(error({{0, ones(3, 2)}, {2, ones(4, 2)}}), "out of order"));  // row 2 twice
    BOOST_TEST(contains(error({{0, ones(4, 2)}, {4, ones(3, 2)}}), "out of order"));  // rows past the vocabulary
    BOOST_TEST(contains(error({{0, ones(6, 3)}}), "of the wrong width"));
    BOOST_TEST(contains(error({{0, ones(3, 2)}}), "ended at row 3 of 6"));
    BOOST_TEST(contains(error_of([&] { (void)count({{0, ones(3, 2)}}, 3); }), "token 3 is outside the head's vocabulary of 3"));
}

// Weights too large for memory are streamed (one layer read when the pass reaches it): the
// choice, and a detection that is the same either way.
BOOST_AUTO_TEST_CASE(streamed_weights_detect_as_resident_ones)
{
    using forward::weight_residence;
    BOOST_TEST((forward::residence_within(100, std::nullopt) == weight_residence::resident));  // no limit known
    BOOST_TEST((forward::residence_within(100, 200) == weight_residence::resident));           // half of the room
    BOOST_TEST((forward::residence_within(101, 200) == weight_residence::streamed));
    for (const char* name : {"fixtures/models/llama", "fixtures/models/gpt2"}) {
        const auto dir = qkov::test::shared_dir_or_skip(name);
        if (dir.empty()) continue;
        const auto model = runs::open_model(dir);
        // At least every attention matrix (W_q, W_o: H d x D; W_k, W_v: G d x D), in T's width.
        const auto& c = model.config();
        const std::uint64_t attention = c.layers * 2 * (c.heads + c.kv_heads) * c.head_dim * c.hidden_size;
        BOOST_TEST(forward::resident_weight_bytes<float>(model) >= 4 * attention);
        BOOST_TEST(forward::resident_weight_bytes<double>(model) == 2 * forward::resident_weight_bytes<float>(model));
        detect::detection_options o;
        o.samples = 2, o.length = 12;
        const auto resident = detect::detect_heads(forward::decoder<double>(model, weight_residence::resident), o);
        const auto streamed = detect::detect_heads(forward::decoder<double>(model, weight_residence::streamed), o);
        BOOST_TEST_REQUIRE(resident.per_head.size() == streamed.per_head.size());
        for (std::size_t i = 0; i < resident.per_head.size(); ++i) {
            const auto &a = resident.per_head[i], &b = streamed.per_head[i];
            BOOST_TEST(a.previous_token.mean == b.previous_token.mean);
            BOOST_TEST(a.induction.mean == b.induction.mean);
            BOOST_TEST(a.bos.mean == b.bos.mean);
            BOOST_TEST(a.behaviours == b.behaviours, boost::test_tools::per_element());
            BOOST_TEST(a.copying.has_value() == b.copying.has_value());
            if (a.copying && b.copying) BOOST_TEST(a.copying->top1_share() == b.copying->top1_share());
        }
    }
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

// A behaviour the samples leave undecided neither confirms nor contradicts a label, and a head
// without the label is not counted as a miss: the samples cannot say either way.
BOOST_AUTO_TEST_CASE(an_undecided_behaviour_neither_confirms_nor_contradicts)
{
    detect::detection_result r;
    r.layers = 1, r.heads = 3, r.length = 50;
    r.rules = detect::behaviour_rules(50, 0.5);
    for (std::size_t h = 0; h < 3; ++h) {
        detect::head_behaviour b;
        b.head = h;
        if (h == 0) b.undecided = {"previous_token"};
        if (h == 1) b.undecided = {"sink"};
        if (h == 2) b.behaviours = {"positional"}, b.undecided = {"previous_token"};
        r.per_head.push_back(b);
    }
    const std::vector<detect::weight_labels> scanned{{0, 0, {"previous_token"}, {"previous_token"}, {}}, {0, 1, {}, {}, {}},
                                                     {0, 2, {"positional", "previous_token"}, {}, {}}};
    const auto c = detect::compare_weights_with_behaviour(scanned, r);
    BOOST_TEST_REQUIRE(c.verdicts.size() == 3u);  // no miss for head 1's undecided sink
    BOOST_TEST((c.verdicts[0].outcome == detect::verdict::undecided));
    BOOST_TEST(c.verdicts[0].certified);  // certified, yet not contradicted: the samples cannot say
    BOOST_TEST(contains(c.verdicts[0].reason, "undecided (95 % interval holds the threshold): previous_token"));
    BOOST_TEST((c.verdicts[1].outcome == detect::verdict::confirmed));  // positional shown
    BOOST_TEST((c.verdicts[2].outcome == detect::verdict::undecided));
    const auto t = c.total();
    BOOST_TEST(t.undecided == 2u);
    BOOST_TEST(t.confirmed == 1u);
    BOOST_TEST(t.missed + t.contradicted + t.certified_contradicted + t.not_tested == 0u);
}

// One head per rule of docs/DETECT.md, and the confusion counts, worked out by hand below.
BOOST_AUTO_TEST_CASE(weight_labels_against_behaviour_rule_by_rule)
{
    detect::detection_result r;
    r.layers = 1, r.heads = 10, r.length = 50;
    r.rules = detect::behaviour_rules(50, 0.5);
    const std::vector<std::vector<std::string>> shown{{"previous_token", "positional"}, {}, {"previous_token", "positional"}, {"induction"},
                                                      {"duplicate_token"}, {"previous_token", "positional"}, {}, {"repeat_shift_2", "copy"},
                                                      {"sink"}, {}};
    for (std::size_t h = 0; h < 10; ++h) {
        detect::head_behaviour b;
        b.head = h, b.behaviours = shown[h];
        if (h == 7 || h == 9) b.copying = forward::copy_counts{10, 0, 0};  // copying measured on these two only
        r.per_head.push_back(b);
    }
    std::vector<detect::weight_labels> scanned{
        {0, 0, {"positional", "previous_token"}, {"previous_token"}, {}},  // both confirmed
        {0, 1, {"previous_token"}, {"previous_token"}, {}},                // contradicted, and certified
        {0, 2, {"offset_3"}, {}, {}},                                      // contradicted: offset 3 measured, absent
        {0, 3, {"positional", "copy"}, {}, {}},                            // positional contradicted; copy not measured: not tested
        {0, 4, {"semantic"}, {}, {}},                                      // confirmed by duplicate_token
        {0, 5, {"semantic"}, {}, {}},                                      // contradicted: position without content
        {0, 6, {"semantic", "sink"}, {}, {}},                              // semantic not tested; sink contradicted
        {0, 7, {"copy"}, {}, {}},                                          // confirmed
        {0, 8, {"mystery"}, {}, {}},                                       // not a label the table knows: not tested
        {0, 9, {"copy_suppression"}, {}, {}},                              // contradicted: measured, absent
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
    BOOST_TEST((verdict_of(2, "previous_token") == verdict::missed));
    BOOST_TEST((verdict_of(3, "positional") == verdict::contradicted));
    BOOST_TEST((verdict_of(3, "copy") == verdict::not_tested));
    BOOST_TEST((verdict_of(3, "semantic") == verdict::missed));
    BOOST_TEST((verdict_of(3, "induction") == verdict::missed));
    // Head 4's duplicate-token behaviour is predicted by its semantic label: not a miss of the
    // duplicate_token label, which would predict it too.
    BOOST_TEST(std::none_of(c.verdicts.begin(), c.verdicts.end(), [](const auto& v) { return v.head == 4 && v.label == "duplicate_token"; }));
    BOOST_TEST((verdict_of(4, "semantic") == verdict::confirmed));
    BOOST_TEST((verdict_of(5, "semantic") == verdict::contradicted));
    BOOST_TEST((verdict_of(6, "semantic") == verdict::not_tested));
    BOOST_TEST((verdict_of(6, "sink") == verdict::contradicted));
    BOOST_TEST((verdict_of(7, "copy") == verdict::confirmed));
    BOOST_TEST((verdict_of(7, "semantic") == verdict::missed));
    BOOST_TEST((verdict_of(7, "repeat_shift_2") == verdict::missed));
    BOOST_TEST((verdict_of(8, "mystery") == verdict::not_tested));
    BOOST_TEST((verdict_of(8, "sink") == verdict::missed));
    BOOST_TEST((verdict_of(9, "copy_suppression") == verdict::contradicted));
    BOOST_TEST(c.heads_compared == 10u);
    // label: confirmed, contradicted, missed, not tested, certified contradicted
    const std::map<std::string, std::array<std::size_t, 5>> expected{
        {"previous_token", {1, 1, 2, 0, 1}}, {"offset_3", {0, 1, 0, 0, 0}}, {"positional", {1, 1, 2, 0, 0}},   {"semantic", {1, 1, 2, 1, 0}},
        {"sink", {0, 1, 1, 0, 0}},           {"copy", {1, 0, 0, 1, 0}},     {"copy_suppression", {0, 1, 0, 0, 0}}, {"mystery", {0, 0, 0, 1, 0}},
        {"induction", {0, 0, 1, 0, 0}},      {"repeat_shift_2", {0, 0, 1, 0, 0}}};
    std::size_t expected_seen = 0;  // an empty or shortened per_label must not pass
    for (const auto& x : c.per_label) {
        const auto it = expected.find(x.label);
        expected_seen += it != expected.end() ? 1 : 0;
        const std::array<std::size_t, 5> got{x.confirmed, x.contradicted, x.missed, x.not_tested, x.certified_contradicted};
        BOOST_TEST((got == (it == expected.end() ? std::array<std::size_t, 5>{} : it->second)), x.label);
    }
    BOOST_TEST(expected_seen == expected.size());
    BOOST_TEST_REQUIRE(!c.per_label.empty());
    BOOST_TEST(c.per_label.back().label == "mystery");  // after the table's labels
    const auto t = c.total();
    BOOST_TEST(t.confirmed == 4u);
    BOOST_TEST(t.contradicted == 6u);
    BOOST_TEST(t.missed == 9u);
    BOOST_TEST(t.not_tested == 3u);
    BOOST_TEST(t.certified_contradicted == 1u);
    // A head the scan did not cover is not compared.
    BOOST_TEST(detect::compare_weights_with_behaviour({{0, 11, {"semantic"}, {}, {}}}, r).heads_compared == 0u);
}

namespace {
/// A scan document of the planted geometry (family llama, 2 layers x 4 heads, 2 kv heads, width 8,
/// head 2, vocabulary 16) with one head.
nlohmann::json planted_scan()
{
    return {{"model", {{"family", "llama"}, {"architecture", "LlamaForCausalLM"}, {"layers", 2}, {"heads", 4}, {"kv_heads", 2}, {"hidden_size", 8},
                       {"head_dim", 2}, {"vocab_size", 16}}},
            {"heads",
             {{{"layer", 1}, {"head", 3}, {"labels", {"previous_token", "copy"}}, {"certified", {"previous_token"}},
               {"mean_field", {{"attention_by_offset", {0.1, 0.6, 0.1, 0, 0, 0, 0, 0, 0}}, {"bos", 0.2}}},
               {"token_copying", {{"top1_share", 0.7}, {"bottom10_share", 0.0}}}}}}};
}

detect::model_geometry planted_geometry() { return {"llama", "llama2.c", 2, 4, 2, 8, 2, 16}; }
} // namespace

BOOST_AUTO_TEST_CASE(scan_labels_and_predictions_are_read)
{
    const auto s = detect::parse_scan_labels(planted_scan(), "scan.json");
    BOOST_TEST_REQUIRE(s.heads.size() == 1u);
    const auto& h = s.heads[0];
    BOOST_TEST(h.layer == 1u);
    BOOST_TEST(h.head == 3u);
    BOOST_TEST(h.has("copy"));
    BOOST_TEST(h.is_certified("previous_token"));
    BOOST_TEST(!h.is_certified("copy"));
    BOOST_TEST_REQUIRE(h.predicted.attention_by_offset.has_value());
    BOOST_TEST((*h.predicted.attention_by_offset)[1] == 0.6);
    BOOST_TEST(h.predicted.bos.value_or(-1) == 0.2);
    BOOST_TEST(h.predicted.top1_share.value_or(-1) == 0.7);
    // The same model read from another format: the family matches, the architecture string need not.
    BOOST_TEST(error_of([&] { detect::require_scan_of(s, planted_geometry(), {}); }) == "(no error)");
    // Today's scans: no certificates, no predictions.
    auto old = planted_scan();
    old["heads"][0].erase("certified"), old["heads"][0].erase("mean_field"), old["heads"][0].erase("token_copying");
    const auto o = detect::parse_scan_labels(old, "old.json");
    BOOST_TEST(o.heads[0].certified.empty());
    BOOST_TEST(!o.heads[0].predicted.attention_by_offset.has_value());
    BOOST_TEST(!o.heads[0].predicted.top1_share.has_value());
}

BOOST_AUTO_TEST_CASE(a_scan_of_another_model_or_with_a_head_twice_is_refused)
{
    const auto s = detect::parse_scan_labels(planted_scan(), "scan.json");
    const auto mismatch = [&](auto change) {
        auto g = planted_geometry();
        change(g);
        return error_of([&] { detect::require_scan_of(s, g, {}); });
    };
    BOOST_TEST(contains(mismatch([](auto& g) { g.family = "gpt2"; }), "scan.json: the scan is of another model: family llama [LlamaForCausalLM] (this model gpt2 [llama2.c])"));
    BOOST_TEST(contains(mismatch([](auto& g) { g.layers = 3; }), "layers x heads 2 x 4 (this model 3 x 4)"));
    BOOST_TEST(contains(mismatch([](auto& g) { g.kv_heads = 4; }), "kv_heads 2 (this model 4)"));
    BOOST_TEST(contains(mismatch([](auto& g) { g.hidden_size = 16; }), "hidden_size 8 (this model 16)"));
    BOOST_TEST(contains(mismatch([](auto& g) { g.head_dim = 4; }), "head_dim 2 (this model 4)"));
    BOOST_TEST(contains(mismatch([](auto& g) { g.vocab_size = 17; }), "vocab_size 16 (this model 17)"));
    auto twice = planted_scan();
    twice["heads"].push_back(twice["heads"][0]);
    BOOST_TEST(contains(error_of([&] { (void)detect::parse_scan_labels(twice, "scan.json"); }), "scan.json: heads[1] lists head 1.3 a second time"));
    bool named = false;
    try {
        (void)detect::parse_scan_labels(twice, "scan.json");
    } catch (const detect::scan_file_error&) {
        named = true;
    }
    BOOST_TEST(named);
    auto outside = planted_scan();
    outside["heads"][0]["head"] = 4;
    BOOST_TEST(contains(error_of([&] { (void)detect::parse_scan_labels(outside, "scan.json"); }), "heads[0] names head 1.4, outside the model"));
    auto no_family = planted_scan();
    no_family["model"].erase("family");
    BOOST_TEST(contains(error_of([&] { (void)detect::parse_scan_labels(no_family, "scan.json"); }), "lacks the string \"family\""));
    auto no_kv = planted_scan();
    no_kv["model"].erase("kv_heads");
    BOOST_TEST(contains(error_of([&] { (void)detect::parse_scan_labels(no_kv, "scan.json"); }), "lacks a non-negative integer \"kv_heads\""));
    auto short_offsets = planted_scan();
    short_offsets["heads"][0]["mean_field"]["attention_by_offset"] = {0.5, 0.5};
    BOOST_TEST(contains(error_of([&] { (void)detect::parse_scan_labels(short_offsets, "scan.json"); }), "attention_by_offset is not an array of offsets 0 .. 8"));
}

// The scan document is untrusted: what it says is checked, nothing is sized from its numbers.
BOOST_AUTO_TEST_CASE(a_scan_document_outside_what_a_scan_writes_is_refused)
{
    const auto refused = [](const nlohmann::json& j) { return error_of([&] { (void)detect::parse_scan_labels(j, "scan.json"); }); };
    auto mystery = planted_scan();
    mystery["heads"][0]["labels"] = {"previous_token", "mystery"};
    BOOST_TEST(contains(refused(mystery), "scan.json: heads[0] has the label 'mystery', which is not in qkov's vocabulary"));
    auto offset_one = planted_scan();  // offset 1 is previous_token's: no such label
    offset_one["heads"][0]["labels"] = {"offset_1"};
    BOOST_TEST(contains(refused(offset_one), "the label 'offset_1', which is not in qkov's vocabulary"));
    auto uncarried = planted_scan();
    uncarried["heads"][0]["certified"] = {"sink"};
    BOOST_TEST(contains(refused(uncarried), "heads[0] certifies 'sink', which is not one of its labels"));
    auto two = planted_scan();
    two["heads"][0]["mean_field"]["bos"] = 2;
    BOOST_TEST(contains(refused(two), "heads[0].mean_field's \"bos\" is 2, not a probability in [0, 1]"));
    auto negative = planted_scan();
    negative["heads"][0]["mean_field"]["attention_by_offset"][1] = -5;
    BOOST_TEST(contains(refused(negative), "attention_by_offset[1] is -5, not a probability in [0, 1]"));
    auto share = planted_scan();
    share["heads"][0]["token_copying"]["top1_share"] = 1.5;
    BOOST_TEST(contains(refused(share), "\"top1_share\" is 1.5, not a probability"));
    // layers x heads that wraps 2^64: read without sizing anything from it, then refused as another model.
    auto wraps = planted_scan();
    wraps["model"]["layers"] = std::uint64_t{1} << 62, wraps["model"]["heads"] = 8;
    wraps["heads"][0]["layer"] = (std::uint64_t{1} << 62) - 1, wraps["heads"][0]["head"] = 7;
    const auto read = detect::parse_scan_labels(wraps, "scan.json");
    BOOST_TEST(read.heads.size() == 1u);
    BOOST_TEST(contains(error_of([&] { detect::require_scan_of(read, planted_geometry(), {}); }), "the scan is of another model: layers x heads 4611686018427387904 x 8"));
}

// A scan file streams through the reader: what the comparison reads is kept, the rest (composition
// pairs, circuits, other evidence) is checked and dropped as it is read, so the kept tree is the
// same for a document of any size; the untrusted-text limits hold in the dropped parts too.
BOOST_AUTO_TEST_CASE(a_scan_file_is_read_keeping_only_what_the_comparison_reads)
{
    const auto dir = std::filesystem::temp_directory_path() / ("qkov-scan-stream-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto write = [&](const std::string& name, const std::string& text) {
        const auto file = dir / name;
        std::ofstream(file, std::ios::binary) << text;
        return file;
    };
    auto expected = planted_scan();  // what the reader keeps: a nested object of the model's, the input
    expected["model"]["rope"] = {{"base", 10000.0}, {"rotary_dim", 2}};
    expected["input"] = "own text";
    auto full = expected;
    full["schema"] = "qkov-scan/7";
    for (int i = 0; i < 2000; ++i) full["composition"].push_back({{"source_layer", 0}, {"source_head", i % 4}, {"q", 0.25}, {"k", 0.5}, {"v", 0.125}});
    full["heads"][0]["circuits"] = {{"candidates", nlohmann::json::array({{{"shift", 1}, {"top1_share", 0.9}}})}};
    full["heads"][0]["qk_singular_values"] = std::vector<double>(64, 1.0);
    const auto file = write("full.json", full.dump());
    const auto read = detect::read_scan_labels(file);
    const auto whole = detect::parse_scan_labels(full, "scan.json");
    BOOST_TEST_REQUIRE(read.heads.size() == 1u);
    BOOST_TEST(read.heads[0].labels == whole.heads[0].labels);
    BOOST_TEST(read.heads[0].certified == whole.heads[0].certified);
    BOOST_TEST(read.heads[0].predicted.top1_share.value_or(-1) == 0.7);
    BOOST_TEST((*read.heads[0].predicted.attention_by_offset)[1] == 0.6);
    BOOST_TEST(read.input == "own text");
    // The kept tree: the planted scan's own parts, none of the rest.
    std::ifstream in(file, std::ios::binary);
    auto kept = io::parse_untrusted_json_kept(in, 64, detect::read_for_comparison);
    BOOST_TEST_REQUIRE(std::holds_alternative<nlohmann::json>(kept));
    BOOST_TEST(std::get<nlohmann::json>(kept) == expected);
    // Refused as a whole, with the untrusted-text readers' words, when a dropped part breaks a limit.
    const auto refused = [&](const std::string& name, const std::string& text) { return error_of([&] { (void)detect::read_scan_labels(write(name, text)); }); };
    std::string twice = full.dump();
    twice.replace(twice.find("\"source_head\""), 0, "\"q\":1,");  // a composition pair with "q" twice
    BOOST_TEST(contains(refused("twice.json", twice), "twice.json: the key \"q\" appears twice in one object"));
    // 64 levels (the document's object and 63 arrays) are read, 65 refused.
    const auto nested = [](std::size_t n) { return nlohmann::json::parse(std::string(n, '[') + std::string(n, ']')); };
    auto at_limit = planted_scan(), deep = planted_scan();
    at_limit["composition"] = nested(63), deep["composition"] = nested(64);
    BOOST_TEST(detect::read_scan_labels(write("limit.json", at_limit.dump())).heads.size() == 1u);
    BOOST_TEST(contains(refused("deep.json", deep.dump()), "deep.json: JSON nests deeper than 64 levels"));
    BOOST_TEST(contains(refused("cut.json", full.dump().substr(0, 4000)), "cut.json: not valid JSON"));
    BOOST_TEST(contains(refused("trailing.json", planted_scan().dump() + " {}"), "trailing.json: not valid JSON"));
    BOOST_TEST(contains(refused("absent.json", "{}"), "absent.json: expected an object with \"model\" and \"heads\""));
    std::filesystem::remove_all(dir);
}

// The scan of another trained model of the same family and shape is refused by its weights; the
// same model in another container (its weights quantised to Q8_0, rounded to bf16) is accepted.
BOOST_AUTO_TEST_CASE(a_scan_is_matched_to_its_model_by_a_weight_fingerprint)
{
    model::weight_fingerprint mine{{0, 1}, 2, 4, {0.5, -0.25, 0.125, 0.0, 1.0, 0.75, -0.5, 0.25, 0.1, 0.2, 0.3, 0.4, -0.4, -0.3, -0.2, -0.1}};
    auto with = planted_scan();
    with["model_fingerprint"] = {{"layers", mine.layers}, {"rows", mine.rows}, {"columns", mine.columns}, {"values", mine.values}};
    const auto s = detect::parse_scan_labels(with, "scan.json");
    BOOST_TEST_REQUIRE(s.fingerprint.has_value());
    BOOST_TEST((s.fingerprint->values == mine.values));
    BOOST_TEST(error_of([&] { detect::require_scan_of(s, planted_geometry(), mine); }) == "(no error)");
    // Within half a Q8_0 step of each row (its largest |w| / 127): the same model quantised.
    auto quantised = mine;
    quantised.values[0] += 0.5 * 0.5 / 127;  // row 0's largest |w| is 0.5
    BOOST_TEST(error_of([&] { detect::require_scan_of(s, planted_geometry(), quantised); }) == "(no error)");
    // Another model: one entry off by more than the bound (0.562 steps) refuses the scan, naming it.
    auto other = mine;
    other.values[5] += 0.6 * 1.0 / 127;  // row 1's largest |w| is 1.0
    BOOST_TEST(contains(error_of([&] { detect::require_scan_of(s, planted_geometry(), other); }),
                        "scan.json: the scan is of another model of the same family and shape: its weights differ (layer 0, head 0's W_v[1, 1] is 0.750000"));
    // Malformed fingerprints are named; none is no check (a scan written before it existed).
    const auto refused = [](auto edit) {
        auto j = planted_scan();
        j["model_fingerprint"] = {{"layers", {0, 1}}, {"rows", 2}, {"columns", 4}, {"values", std::vector<double>(16, 0.0)}};
        edit(j["model_fingerprint"]);
        return error_of([&] { (void)detect::parse_scan_labels(j, "scan.json"); });
    };
    BOOST_TEST(contains(refused([](auto& f) { f["values"].push_back(0.0); }), "model_fingerprint does not hold layers x rows x columns values"));
    BOOST_TEST(contains(refused([](auto& f) { f["columns"] = 1000000; }), "model_fingerprint has 2 x 1000000 entries per layer, not at most 4 x 32"));
    BOOST_TEST(contains(refused([](auto& f) { f["layers"] = {0, 1, 2}; }), "model_fingerprint lacks its one or two layers"));
    BOOST_TEST(contains(refused([](auto& f) { f["values"][3] = "x"; }), "model_fingerprint has a value that is not a finite number"));
    BOOST_TEST(!detect::parse_scan_labels(planted_scan(), "scan.json").fingerprint.has_value());
}

// The prediction figures: one per behaviour some head of the scan predicts (here offsets 0 .. 8 and
// BOS for head 0.0, copying for head 3.1), none for what no head predicts (copy suppression).
BOOST_AUTO_TEST_CASE(prediction_figures_for_what_the_scan_predicts)
{
    const planted_pass pass;
    detect::detection_options o;
    o.length = 12, o.samples = 1;
    const auto r = detect::detect_heads(pass, o);
    detect::weight_labels offsets{0, 0, {"previous_token"}, {}, {}}, copying{3, 1, {"copy"}, {}, {}};
    offsets.predicted.attention_by_offset = std::array<double, 9>{0, 0.9, 0.1, 0, 0, 0, 0, 0, 0};
    offsets.predicted.bos = 0.05, offsets.predicted.previous_token = 0.85;
    copying.predicted.top1_share = 0.8;
    const auto dir = std::filesystem::temp_directory_path() / ("qkov-prediction-figures-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::vector<std::string> skipped;
    const auto written = detect::write_prediction_figures(r, {offsets, copying}, dir, skipped);
    std::set<std::string> files;
    for (const auto& f : written) files.insert(f.file);
    BOOST_TEST(written.size() == 11u);  // previous_token, offsets 0 and 2 .. 8, sink, copy
    for (const char* f : {"prediction_previous_token.png", "prediction_offset_0.png", "prediction_offset_8.png", "prediction_sink.png", "prediction_copy.png"}) {
        BOOST_TEST(files.contains(f), f);
        BOOST_TEST(std::filesystem::file_size(dir / f) > 1000u, f);
    }
    BOOST_TEST((skipped == std::vector<std::string>{"copy_suppression"}));
    std::filesystem::remove_all(dir);
}

// The document written, read back and written again is the same document, comparison included.
BOOST_AUTO_TEST_CASE(detection_document_round_trips)
{
    const planted_pass pass;
    detect::detection_options o;
    o.length = 12, o.samples = 2;
    detect::detection_document d;
    d.result = detect::detect_heads(pass, o);
    d.model = {{"layers", 4}, {"heads", 2}, {"architecture", "planted"}};
    d.dtype = "float64";
    d.compared = detect::compare_weights_with_behaviour({{0, 0, {"previous_token", "copy"}, {"copy"}, {}}, {3, 1, {"semantic"}, {}, {}}}, d.result);
    d.scan_file = "scan.json";
    const auto written = detect::detection_json(d);
    BOOST_TEST(written["schema"] == "qkov.detect/2");
    const auto read = detect::read_detection_json(written);
    BOOST_TEST(read.result.per_head.size() == d.result.per_head.size());
    BOOST_TEST(read.result.per_head[0].copying->queries == d.result.per_head[0].copying->queries);
    BOOST_TEST(detect::detection_json(read) == written);
    // Without a comparison: null, read back as none.
    d.compared.reset();
    BOOST_TEST(!detect::read_detection_json(detect::detection_json(d)).compared.has_value());
    auto other = written;
    other["schema"] = "qkov.detect/1";
    BOOST_TEST(contains(error_of([&] { (void)detect::read_detection_json(other); }), "not a detection document of schema qkov.detect/2"));
    other = written;
    other["heads"][0].erase("bos");
    BOOST_TEST(contains(error_of([&] { (void)detect::read_detection_json(other); }), "lacks what it should hold"));
}

BOOST_AUTO_TEST_CASE(bos_token_as_each_file_declares_it)
{
    const auto shared = test::shared_dir_or_skip("fixtures/models");
    if (shared.empty()) return;
    BOOST_TEST((qkov::runs::open_model(shared / "gpt2").config().bos_token_id == std::optional<std::size_t>(0)));
    BOOST_TEST((qkov::runs::open_model(shared / "llama").config().bos_token_id == std::optional<std::size_t>(1)));
    const auto real = test::shared_dir_or_skip("real_models");
    if (real.empty()) return;
    BOOST_TEST((qkov::runs::open_model(real / "gpt2-small-attention").config().bos_token_id == std::optional<std::size_t>(50256)));
    for (const char* file : {"llama2c-stories260K/stories260K.gguf", "llama2c-stories260K/stories260K.bin", "llama2c-stories260K/hf"})
        BOOST_TEST((qkov::runs::open_model(real / file).config().bos_token_id == std::optional<std::size_t>(1)), file);
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

namespace {
// Every head's mean TransformerLens previous-token and induction scores over the 4 sequences of the
// detection below (|r| = 20, seed 11), printed by tests/stories260k_reference.py: an independent
// float64 numpy Llama forward pass over hf/'s safetensors, with its own implementation of
// detect's seeded draw (std::mt19937_64, the partial shuffle), not qkov's output.
// [layer][head] = {previous_token, induction}.
const double stories260k_reference_means[5][8][2] = {
    {{0.06537353370107006, 0.028403937920187153}, {0.052602612862901355, 0.024250985426553795}, {0.08585597851641766, 0.02309158860824559}, {0.08450311834133818, 0.029201193869673694}, {0.0633350025612484, 0.026773436623381282}, {0.041408403018358284, 0.027796012559417962}, {0.03243435299555268, 0.0128514028981059}, {0.056725531668644885, 0.017455147435684194}},
    {{0.2901238230693222, 0.0019018921161127282}, {0.3640795803198047, 0.0009237306448644908}, {0.6630328775746283, 0.00036201496327965783}, {0.8422270611907738, 8.160126164059077e-11}, {0.6978230194067957, 0.0006306860883814747}, {0.6957923549461986, 0.0003999525357500341}, {0.5721483690684827, 1.3007560476124165e-08}, {0.30694144023170183, 0.0004165945591375515}},
    {{0.27737362254427694, 1.1055463148773357e-07}, {0.4635134457176007, 3.396229642608571e-06}, {0.5201864657282648, 1.0710808713531759e-06}, {0.36782206481925467, 0.00012714227047282739}, {0.07081258582307749, 0.01132631096613489}, {0.08542848683938056, 0.006550583915229687}, {0.06504936903654396, 0.011808553399691805}, {0.10192365370551948, 0.0018943635880474179}},
    {{0.08632144941500744, 0.01234372004665219}, {0.17090722573478795, 0.002967579168796369}, {0.31698984434510946, 0.0005366372542269428}, {0.1313333518094908, 0.0016202576693474097}, {0.2610902667020726, 6.773620796719393e-11}, {0.2839249709926732, 1.7433810727235818e-06}, {0.8736376796329471, 9.564844687896078e-08}, {0.6305860410201657, 7.721535522470786e-05}},
    {{0.04910470631351185, 0.015846221015104835}, {0.13468383362741435, 0.0038691963883329297}, {0.09914625378050212, 0.006062143986455166}, {0.08219527564069182, 0.007971443401348375}, {0.08788328966318511, 0.010505122106064453}, {0.07745760797307726, 0.011514460877209115}, {0.1949624941458627, 0.0005086180473095603}, {0.1353451694023971, 0.0007851549224261441}},
};
} // namespace

// stories260K through the real forward pass (float32): every head's mean scores are the independent
// reference's (1e-4: far above float32 rounding, far below the gaps between heads); the heads shown
// as previous-token are those whose reference mean reaches the threshold (1.2, 1.3, 1.4, 1.5, 1.6,
// 2.2, 3.6, 3.7, each shown or undecided where 4 samples leave its interval across the threshold;
// 1.3 and 3.6, far above it, shown), and no head shows induction (the model has 5 layers of 8
// heads and was trained on short stories).
BOOST_AUTO_TEST_CASE(stories260k_previous_token_heads_from_its_forward_pass)
{
    const auto dir = test::shared_dir_or_skip("real_models/llama2c-stories260K");
    if (dir.empty()) return;
    const auto model = qkov::runs::open_model(dir / "stories260K.bin");
    const forward::decoder<float> pass(model);
    detect::detection_options o;
    o.length = 20, o.samples = 4, o.seed = 11;
    const auto r = detect::detect_heads(pass, o);
    BOOST_TEST(r.bos == 1u);
    BOOST_TEST_REQUIRE(r.per_head.size() == 40u);
    const auto* rule = r.rule("previous_token");
    BOOST_TEST_REQUIRE(rule != nullptr);
    const double threshold = 0.5 * 40.0 / 41;  // half the attainable (n - 1) / n, n = 41
    BOOST_TEST(rule->threshold == threshold, boost::test_tools::tolerance(1e-15));
    std::size_t reaching = 0, shown = 0;  // by qkov's means; the reference's reach it on 8 heads
    for (const auto& h : r.per_head) {
        const auto& want = stories260k_reference_means[h.layer][h.head];
        BOOST_TEST(std::abs(h.previous_token.mean - want[0]) < 1e-4, h.layer << "." << h.head << " previous_token " << h.previous_token.mean << " against " << want[0]);
        BOOST_TEST(std::abs(h.induction.mean - want[1]) < 1e-4, h.layer << "." << h.head << " induction " << h.induction.mean << " against " << want[1]);
        const bool reaches = want[0] >= threshold;
        reaching += h.previous_token.mean >= threshold ? 1 : 0;
        shown += h.shows("previous_token") ? 1 : 0;
        if (reaches) BOOST_TEST((h.shows("previous_token") || h.undecided_on("previous_token")), h.layer << "." << h.head << " reaches the threshold");
        else BOOST_TEST(!h.shows("previous_token"), h.layer << "." << h.head << " is below the threshold");
        BOOST_TEST(!h.shows("induction"), h.layer << "." << h.head);
    }
    BOOST_TEST(reaching == 8u);
    BOOST_TEST_MESSAGE("stories260K previous_token: " << shown << " of the 8 heads reaching the threshold shown, the rest undecided");
    BOOST_TEST(at(r, 1, 3).shows("previous_token"));
    BOOST_TEST(at(r, 3, 6).shows("previous_token"));
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

// A head's map into logits against the final norm itself: for an output y of head h (d values), the
// model's final norm of x = W_o,h y, times the size the norm divided by (sqrt(mean(x^2) + eps), x
// centred for a LayerNorm) and without its bias, through the unembedding, is head_unembedding y.
// On GPT-2's fixture (LayerNorm: the centring matters) and the Llama fixture (RMSNorm).
BOOST_AUTO_TEST_CASE(head_unembedding_is_the_final_norms_scale_then_the_unembedding)
{
    const auto shared = test::shared_dir_or_skip("fixtures/models");
    if (shared.empty()) return;
    for (const char* name : {"gpt2", "llama"}) {
        const forward::decoder<double> pass(qkov::runs::open_model(shared / name));
        const auto& w = pass.weights();
        const std::size_t D = w.config.hidden_size, d = w.config.head_dim, l = 1, h = 2;
        forward::tensor2<double> x = xt::zeros<double>({std::size_t{1}, D});
        std::vector<double> y(d);
        for (std::size_t i = 0; i < d; ++i) y[i] = std::sin(1.0 + double(i));  // any output will do
        for (std::size_t r = 0; r < D; ++r)
            for (std::size_t i = 0; i < d; ++i) x(0, r) += w.blocks[l].attention.w_o(r, h * d + i) * y[i];
        auto norm = w.final_norm;
        norm.bias.clear();
        double mean = 0, square = 0;
        if (norm.kind == io::norm_kind::layer_norm)
            for (std::size_t r = 0; r < D; ++r) mean += x(0, r) / double(D);
        for (std::size_t r = 0; r < D; ++r) square += (x(0, r) - mean) * (x(0, r) - mean) / double(D);
        const auto normed = forward::normalized(x, norm);
        const auto& U = w.output_embedding();
        const auto map = pass.head_unembedding(l, h);
        BOOST_TEST_REQUIRE(map.shape()[0] == U.shape()[0]);
        BOOST_TEST_REQUIRE(map.shape()[1] == d);
        double largest = 0, worst = 0;
        for (std::size_t v = 0; v < U.shape()[0]; ++v) {
            double through_norm = 0, through_map = 0;
            for (std::size_t r = 0; r < D; ++r) through_norm += U(v, r) * normed(0, r);
            through_norm *= std::sqrt(square + norm.eps);
            for (std::size_t i = 0; i < d; ++i) through_map += map(v, i) * y[i];
            largest = std::max(largest, std::abs(through_norm));
            worst = std::max(worst, std::abs(through_norm - through_map));
        }
        BOOST_TEST(largest > 0.0, name);
        BOOST_TEST(worst <= 1e-12 * std::max(1.0, largest), name << ": largest difference " << worst << " of logits up to " << largest);
    }
}

// The forward pass and the TransformerLens scores on trained models, on the very inputs of the
// independent NumPy forward pass of ../shared/trained_models (ground_truth.json: [BOS] + r + r for
// its 20 draws of r, tests/trained_models_draws.hpp): every head's mean and standard deviation
// (ddof 0) of the three TL scores and of the repeat attention by shift must be its numbers, which
// it rounds to 4 decimals (so 5e-5 and the float64 passes' difference, far below 1e-9). All four
// models, the SmolLM3 one with its RoPE-free layer 1 among them.
BOOST_AUTO_TEST_CASE(trained_models_give_the_independent_passs_scores_on_its_own_inputs)
{
    const double rounding = 5e-5 + 1e-9;
    for (const char* name : {"llama_rope_induction", "neox_partial_rotary", "gpt2_learned_positions", "llama_nope_layer"}) {
        const auto dir = test::shared_dir_or_skip(std::string("trained_models/") + name);
        if (dir.empty()) return;
        const auto truth = nlohmann::json::parse(std::ifstream(dir / "ground_truth.json"));
        const auto model = qkov::runs::open_model(dir);
        const forward::decoder<double> pass(model);
        const std::size_t layers = model.config().layers, heads = model.config().heads;
        const auto bos = truth.at("tokens").at("bos").get<token_id>();
        // Per head, every sample's scores: previous, duplicate, induction, then the shifts.
        std::vector<std::vector<std::vector<double>>> samples(layers * heads);
        std::vector<std::vector<forward::head_scores>> scores;
        for (const auto& r : test::trained_models_draws) {
            std::vector<token_id> tokens{bos};
            for (int copy = 0; copy < 2; ++copy) tokens.insert(tokens.end(), std::begin(r), std::end(r));
            (void)pass.residual_stream(tokens, forward::score_heads<double>(scores, tokens, layers, heads));
            for (std::size_t l = 0; l < layers; ++l)
                for (std::size_t h = 0; h < heads; ++h) {
                    const auto& x = scores[l][h];
                    std::vector<double> v{x.previous_token, x.duplicate_token, x.induction};
                    v.insert(v.end(), x.by_shift.begin(), x.by_shift.end());
                    samples[l * heads + h].push_back(std::move(v));
                }
        }
        std::vector<std::pair<std::string, std::size_t>> measures{{"previous_token", 0}, {"duplicate_token", 1}, {"induction", 2}};
        // The truth measures shifts -1 .. 3; detect measures more. Every shift the truth has is
        // compared, and it must have them all (a truth without shifts would compare nothing).
        const auto& truth_shifts = truth.at("heads").at("0.0").at("repeat_attention_by_shift");
        for (std::size_t m = 0; m < forward::repeat_shift_count; ++m)
            if (truth_shifts.contains(std::to_string(forward::repeat_shifts[m])))
                measures.emplace_back("shift " + std::to_string(forward::repeat_shifts[m]), 3 + m);
        BOOST_TEST_REQUIRE(measures.size() == 3u + 5u, name << ": shifts -1 .. 3 are compared");
        BOOST_TEST(truth.at("heads").size() == layers * heads, name << ": every head of the ground truth is compared");
        for (std::size_t l = 0; l < layers; ++l)
            for (std::size_t h = 0; h < heads; ++h) {
                const std::string id = std::to_string(l) + "." + std::to_string(h);
                const auto& t = truth.at("heads").at(id);
                const auto& per_sample = samples[l * heads + h];
                BOOST_TEST_REQUIRE(per_sample.size() == 20u);
                for (const auto& [measure, index] : measures) {
                    const auto& theirs = measure.starts_with("shift ") ? t.at("repeat_attention_by_shift").at(measure.substr(6)) : t.at("tl_scores").at(measure);
                    double mean = 0, square = 0;
                    for (const auto& v : per_sample) mean += v[index] / 20;
                    for (const auto& v : per_sample) square += (v[index] - mean) * (v[index] - mean) / 20;
                    BOOST_TEST(std::abs(mean - theirs.at("mean").get<double>()) <= rounding, name << " " << id << " " << measure << " mean " << mean << " vs " << theirs);
                    BOOST_TEST(std::abs(std::sqrt(square) - theirs.at("std").get<double>()) <= rounding, name << " " << id << " " << measure << " std " << std::sqrt(square) << " vs " << theirs);
                }
            }
    }
}

// qkov detect's own sampling on the same trained models: the test above holds the pass and the
// scores to the independent NumPy forward pass of ../shared/trained_models on its very inputs; this
// one holds detect_heads' draws and statistics to it. Our draws come from another generator, so
// the means are compared as two estimates of one expectation: within 4 standard errors of their
// difference (the ground truth's std over its 20 draws, ddof 0, and our spread over ours) plus 0.02
// for what the draws differ in besides chance (numpy draws ids 3 .. V-1, we draw every id but BOS).
// The TL scores and the repeat attention by shift s = -1 .. 2 of every head; then the behaviours
// the ground truth's numbers imply, away from its stated borderline (normalized score in
// (0.4, 0.6)), must be the ones shown.
BOOST_AUTO_TEST_CASE(trained_models_match_an_independent_forward_pass)
{
    for (const char* name : {"llama_rope_induction", "neox_partial_rotary", "gpt2_learned_positions", "llama_nope_layer"}) {
        const auto dir = test::shared_dir_or_skip(std::string("trained_models/") + name);
        if (dir.empty()) return;
        std::ifstream in(dir / "ground_truth.json");
        const auto truth = nlohmann::json::parse(in);
        const auto model = qkov::runs::open_model(dir);
        const forward::decoder<float> pass(model);
        detect::detection_options o;
        o.length = 50, o.samples = 20, o.seed = 2025;
        const auto r = detect::detect_heads(pass, o);
        BOOST_TEST_REQUIRE(r.per_head.size() == truth.at("heads").size());  // every head judged, none when empty
        const double samples = 20, truth_draws = 20, attainable = 50.0 / 101;
        const auto agrees = [&](const detect::score_statistics& ours, const nlohmann::json& theirs) {
            const double error = std::sqrt(ours.spread * ours.spread / samples + std::pow(theirs.at("std").get<double>(), 2) / truth_draws);
            return std::abs(ours.mean - theirs.at("mean").get<double>()) <= 4 * error + 0.02;
        };
        for (const auto& h : r.per_head) {
            const std::string id = std::to_string(h.layer) + "." + std::to_string(h.head);
            const auto& t = truth.at("heads").at(id);
            const auto& tl = t.at("tl_scores");
            BOOST_TEST(agrees(h.previous_token, tl.at("previous_token")), name << " " << id << " previous_token " << h.previous_token.mean << " vs " << tl.at("previous_token"));
            BOOST_TEST(agrees(h.duplicate_token, tl.at("duplicate_token")), name << " " << id << " duplicate_token " << h.duplicate_token.mean << " vs " << tl.at("duplicate_token"));
            BOOST_TEST(agrees(h.induction, tl.at("induction")), name << " " << id << " induction " << h.induction.mean << " vs " << tl.at("induction"));
            for (const int s : forward::repeat_shifts) {
                if (!t.at("repeat_attention_by_shift").contains(std::to_string(s))) continue;  // the truth measures shifts -1 .. 3
                const auto& theirs = t.at("repeat_attention_by_shift").at(std::to_string(s));
                BOOST_TEST(agrees(h.shift(s), theirs), name << " " << id << " shift " << s << ": " << h.shift(s).mean << " vs " << theirs);
            }
            // What the ground truth's numbers imply, where they are clear of the threshold.
            const auto implied = [&](const char* behaviour, double mean, double reachable) {
                const double normalized = mean / reachable;
                if (normalized > 0.4 && normalized < 0.6) return;
                BOOST_TEST(h.shows(behaviour) == (normalized >= 0.5), name << " " << id << " " << behaviour << " (ground truth " << mean << ")");
            };
            implied("previous_token", tl.at("previous_token").at("mean").get<double>(), 100.0 / 101);
            implied("duplicate_token", tl.at("duplicate_token").at("mean").get<double>(), attainable);
            implied("induction", tl.at("induction").at("mean").get<double>(), attainable);
            const auto& by_shift = t.at("repeat_attention_by_shift");
            implied("shifted_induction", std::max(by_shift.at("-1").at("mean").get<double>(), by_shift.at("2").at("mean").get<double>()), attainable);
        }
    }
}
