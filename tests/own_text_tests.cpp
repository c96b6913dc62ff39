// The model's own text and the detection on text: the key/value cache against the uncached pass
// (float64, every stack: learned positions, parallel residual with partial rotary, GQA, a NoPE
// layer, llama2.c's interleaved pairs, streamed weights), the sampler (seeded, the same whatever runs
// side by side, each token drawn from the uncached pass's own logits, temperature 1 against the
// softmax), the rules on text (attainable scores that are [BOS] + r + r's where the text is that),
// the scores on text, the pairing of a scan's input with a detection's, and the document.
#define BOOST_TEST_MODULE own_text
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/detect/detection_json.hpp"
#include "qkov/detect/input_pairing.hpp"
#include "qkov/detect/text_detection.hpp"
#include "qkov/forward/kv_cache.hpp"
#include "qkov/forward/own_text.hpp"
#include "model_runs.hpp"
#include "error_text.hpp"
#include "shared_dir.hpp"

using namespace qkov;
using forward::token_id;
using test::contains;
using test::error_of;

namespace {

/// The largest |cached - uncached| over every position's logits, relative to max(1, |uncached|):
/// two sequences side by side through the cache, against decoder::logits on each whole sequence.
template <class T>
double cache_error(const forward::decoder<T>& pass, const std::vector<std::vector<token_id>>& sequences)
{
    const std::size_t n = sequences.front().size();
    forward::kv_cache<T> cache(pass, sequences.size(), n);
    std::vector<forward::tensor2<T>> whole;
    for (const auto& s : sequences) whole.push_back(pass.logits(s));
    double worst = 0;
    for (std::size_t p = 0; p < n; ++p) {
        std::vector<token_id> next;
        for (const auto& s : sequences) next.push_back(s[p]);
        const auto step = cache.step(next);
        for (std::size_t s = 0; s < sequences.size(); ++s)
            for (std::size_t v = 0; v < step.shape()[1]; ++v) {
                const double want = double(whole[s](p, v));
                worst = std::max(worst, std::abs(double(step(s, v)) - want) / std::max(1.0, std::abs(want)));
            }
    }
    return worst;
}

/// Two sequences of n tokens from BOS, seeded, below the vocabulary.
std::vector<std::vector<token_id>> two_sequences(std::size_t n, std::size_t vocabulary, token_id bos)
{
    std::mt19937_64 rng(7);
    std::vector<std::vector<token_id>> out(2, std::vector<token_id>{bos});
    for (auto& s : out)
        while (s.size() < n) s.push_back(static_cast<token_id>(numeric::uniform_below(rng, vocabulary)));
    return out;
}

/// The model files the cache is checked on: each stack the pass runs.
std::vector<std::filesystem::path> stacks()
{
    std::vector<std::filesystem::path> out;
    for (const char* name : {"fixtures/models/gpt2", "fixtures/models/gpt_neox", "fixtures/models/llama", "trained_models/llama_nope_layer",
                             "real_models/llama2c-stories260K/stories260K.bin"})
        if (const auto p = test::shared_dir_or_skip(name); !p.empty()) out.push_back(p);
    return out;
}

} // namespace

// Every position's logits through the cache are the whole sequence's, to rounding: float64 within
// 1e-12 (relative to the logit's size, at least 1), float32 within 1e-4; streamed weights (read
// layer by layer each step) give the resident pass's numbers.
BOOST_AUTO_TEST_CASE(the_cache_gives_the_uncached_logits)
{
    for (const auto& path : stacks()) {
        const auto model = qkov::runs::open_model(path);
        const forward::decoder<double> pass(model);
        const auto sequences = two_sequences(40, pass.vocabulary(), static_cast<token_id>(model.config().bos_token_id.value_or(0)));
        const double error = cache_error(pass, sequences);
        BOOST_TEST_MESSAGE(path.filename().string() << ": float64 cache error " << error);
        BOOST_TEST(error < 1e-12, path.string() << ": " << error);
        BOOST_TEST(cache_error(forward::decoder<double>(model, forward::weight_residence::streamed), sequences) < 1e-12, path.string());
        BOOST_TEST(cache_error(forward::decoder<float>(model), sequences) < 1e-4, path.string());
    }
}

// The cache refuses what it cannot hold: no sequence, a capacity past the model's context, a step
// past its capacity, a step with the wrong number of tokens.
BOOST_AUTO_TEST_CASE(the_cache_refuses_what_it_cannot_hold)
{
    const auto dir = test::shared_dir_or_skip("fixtures/models/llama");
    if (dir.empty()) return;
    const auto model = qkov::runs::open_model(dir);
    const forward::decoder<double> pass(model);
    BOOST_TEST(contains(error_of([&] { forward::kv_cache<double>(pass, 0, 4); }), "at least one sequence"));
    BOOST_TEST(contains(error_of([&] { forward::kv_cache<double>(pass, 1, model.config().max_positions + 1); }), "the model's context is"));
    forward::kv_cache<double> cache(pass, 2, 1);
    BOOST_TEST(contains(error_of([&] { (void)cache.step(std::vector<token_id>{1}); }), "1 tokens for a cache of 2 sequences"));
    (void)cache.step(std::vector<token_id>{1, 1});
    BOOST_TEST(contains(error_of([&] { (void)cache.step(std::vector<token_id>{1, 1}); }), "holds its 1 positions already"));
}

// A draw maps u to the first token whose cumulative probability passes it: logits (0, ln 2, ln 1)
// are probabilities 1/4, 1/2, 1/4 at temperature 1; the ends of [0, 1) reach the first and the last
// token; non-finite logits and draws outside [0, 1) are refused.
BOOST_AUTO_TEST_CASE(a_draw_inverts_the_softmax_at_temperature_one)
{
    const std::vector<double> logits{0.0, std::log(2.0), 0.0};
    const auto draw = [&](double u) { return forward::sample_token(std::span<const double>(logits), u); };
    BOOST_TEST(draw(0.0) == 0u);
    BOOST_TEST(draw(0.2499) == 0u);
    BOOST_TEST(draw(0.2501) == 1u);
    BOOST_TEST(draw(0.7499) == 1u);
    BOOST_TEST(draw(0.7501) == 2u);
    BOOST_TEST(draw(std::nextafter(1.0, 0.0)) == 2u);
    const std::vector<float> bad{0.0f, INFINITY};
    BOOST_TEST(contains(error_of([&] { (void)forward::sample_token(std::span<const float>(bad), 0.5); }), "not finite"));
    BOOST_TEST(contains(error_of([&] { (void)draw(1.0); }), "[0, 1)"));
    std::mt19937_64 rng(3);
    for (int i = 0; i < 1000; ++i) {
        const double u = forward::unit_uniform(rng);
        BOOST_TEST((u >= 0 && u < 1));
    }
}

// Drawn many times, each token's frequency is its softmax probability at temperature 1 (not the
// sharpened or flattened one): a chi-square over 8 tokens with logits spread over 4 nats, 200,000
// draws, below the 0.999 quantile of chi-square with 7 degrees of freedom (24.32); the same logits
// at temperature 2 or 1/2 are far above it.
BOOST_AUTO_TEST_CASE(draws_follow_the_softmax)
{
    const std::vector<double> logits{-2.0, -1.0, -0.5, 0.0, 0.3, 1.0, 1.5, 2.0};
    const auto chi_square = [&](double temperature) {
        std::vector<double> p(logits.size());
        double total = 0;
        for (std::size_t j = 0; j < p.size(); ++j) total += p[j] = std::exp(logits[j] / temperature);
        std::vector<std::size_t> seen(logits.size(), 0);
        std::mt19937_64 rng(11);
        const std::size_t draws = 200000;
        for (std::size_t i = 0; i < draws; ++i) ++seen[forward::sample_token(std::span<const double>(logits), forward::unit_uniform(rng))];
        double x = 0;
        for (std::size_t j = 0; j < p.size(); ++j) {
            const double expected = double(draws) * p[j] / total;
            x += (double(seen[j]) - expected) * (double(seen[j]) - expected) / expected;
        }
        return x;
    };
    BOOST_TEST(chi_square(1.0) < 24.32);
    BOOST_TEST(chi_square(2.0) > 1000.0);
    BOOST_TEST(chi_square(0.5) > 1000.0);
}

// On a real model: the first token after BOS over 1,000 seeded sequences against the softmax of the
// uncached pass's logits at BOS, chi-square over the tokens expected at least 5 times (probability
// >= 0.5 %; the rest pooled) below its 0.999 quantile.
BOOST_AUTO_TEST_CASE(the_first_token_follows_the_models_own_distribution)
{
    const auto dir = test::shared_dir_or_skip("real_models/llama2c-stories260K/hf");
    if (dir.empty()) return;
    const auto model = qkov::runs::open_model(dir);
    const forward::decoder<double> pass(model);
    const token_id bos = 1;
    const std::size_t count = 1000;
    const auto text = forward::sample_own_text(pass, {.sequences = count, .length = forward::shortest_own_text, .seed = 5, .bos = bos});
    const auto logits = pass.logits(std::vector<token_id>{bos});
    const std::size_t V = logits.shape()[1];
    double top = -INFINITY, total = 0;
    for (std::size_t v = 0; v < V; ++v) top = std::max(top, logits(0, v));
    std::vector<double> p(V);
    for (std::size_t v = 0; v < V; ++v) total += p[v] = std::exp(logits(0, v) - top);
    std::vector<double> seen(V, 0);
    for (const auto& s : text) seen.at(s.at(1)) += 1;
    double x = 0, rest_seen = 0, rest_p = 0;
    std::size_t cells = 0;
    for (std::size_t v = 0; v < V; ++v) {
        const double q = p[v] / total;
        if (q < 0.005) {
            rest_seen += seen[v], rest_p += q;
            continue;
        }
        x += (seen[v] - double(count) * q) * (seen[v] - double(count) * q) / (double(count) * q), ++cells;
    }
    x += (rest_seen - double(count) * rest_p) * (rest_seen - double(count) * rest_p) / (double(count) * rest_p), ++cells;
    BOOST_TEST_MESSAGE("first token after BOS: chi-square " << x << " over " << cells << " cells");
    BOOST_TEST(cells >= 3u);
    // The 0.999 quantile of chi-square with k degrees of freedom is below k + 3.1 sqrt(2k) + 10 for every k.
    const double dof = double(cells - 1);
    BOOST_TEST(x < dof + 3.1 * std::sqrt(2 * dof) + 10);
}

// The sampler is seeded: the same seed gives the same text, another seed another; sequence k depends
// on the seed and k alone, so a smaller draw is the larger one's first sequences, whether they ran
// side by side or one at a time; each is [BOS] + length tokens below the vocabulary.
BOOST_AUTO_TEST_CASE(own_text_is_seeded_and_the_same_whatever_runs_side_by_side)
{
    const auto dir = test::shared_dir_or_skip("real_models/llama2c-stories260K/hf");
    if (dir.empty()) return;
    const auto model = qkov::runs::open_model(dir);
    const forward::decoder<float> pass(model);
    const forward::own_text_options o{.sequences = 6, .length = 30, .seed = 42, .bos = 1};
    const auto a = forward::sample_own_text(pass, o);
    BOOST_TEST(a.size() == 6u);
    for (const auto& s : a) {
        BOOST_TEST(s.size() == 31u);
        BOOST_TEST(s.front() == 1u);
        BOOST_TEST(std::all_of(s.begin(), s.end(), [](token_id t) { return t < 512; }));
    }
    BOOST_TEST((forward::sample_own_text(pass, o) == a));
    auto one_at_a_time = o;
    one_at_a_time.cache_memory = 1;
    BOOST_TEST((forward::sample_own_text(pass, one_at_a_time) == a));
    auto fewer = o;
    fewer.sequences = 2;
    const auto b = forward::sample_own_text(pass, fewer);
    BOOST_TEST((b == std::vector<std::vector<token_id>>(a.begin(), a.begin() + 2)));
    auto other = o;
    other.seed = 43;
    BOOST_TEST((forward::sample_own_text(pass, other) != a));
    BOOST_TEST((a[0] != a[1]));
}

// Each token is the draw of its sequence's generator from the uncached pass's logits at the position
// before it: the cache feeds the sampler the right position's logits (float64, where the two passes
// agree to 1e-12, far from any draw's boundary).
BOOST_AUTO_TEST_CASE(each_token_is_drawn_from_the_logits_before_it)
{
    for (const auto& path : stacks()) {
        const auto model = qkov::runs::open_model(path);
        const forward::decoder<double> pass(model);
        const auto bos = static_cast<token_id>(model.config().bos_token_id.value_or(0));
        const auto text = forward::sample_own_text(pass, {.sequences = 3, .length = 12, .seed = 9, .bos = bos});
        for (std::size_t k = 0; k < text.size(); ++k) {
            auto rng = forward::sequence_generator(9, k);
            const auto logits = pass.logits(std::span<const token_id>(text[k]).first(12));
            for (std::size_t p = 0; p < 12; ++p) {
                const std::size_t V = logits.shape()[1];
                const auto want = forward::sample_token(std::span<const double>(logits.data() + p * V, V), forward::unit_uniform(rng));
                BOOST_TEST(text[k][p + 1] == want, path.filename().string() << " sequence " << k << " position " << p + 1);
            }
        }
    }
}

// The own text's length is bounded by name: below the offsets' 8, past the model's context.
BOOST_AUTO_TEST_CASE(own_text_lengths_are_bounded)
{
    const auto dir = test::shared_dir_or_skip("trained_models/gpt2_learned_positions");
    if (dir.empty()) return;
    const auto model = qkov::runs::open_model(dir);
    const forward::decoder<float> pass(model);
    BOOST_TEST(contains(error_of([&] { forward::check_own_text_length(pass, 7, "--text-length"); }), "--text-length 7: expected 8 .."));
    BOOST_TEST(contains(error_of([&] { forward::check_own_text_length(pass, 256, "--text-length"); }),
                        "--text-length 256 makes sequences of 257 tokens, but the model has a context of 256"));
    forward::check_own_text_length(pass, 255, "--text-length");
    BOOST_TEST(contains(error_of([&] { (void)forward::sample_own_text(pass, {.sequences = 1, .length = 8, .seed = 0, .bos = 512}); }),
                        "outside the vocabulary"));
}

// On [BOS] + r + r the text's attainable scores are (n - 1) / n and |r| / n at every shift, so the
// rules on text are the rules on random tokens; on a hand-made text they count the queries with a
// target at each shift.
BOOST_AUTO_TEST_CASE(rules_on_text_are_the_random_rules_where_the_text_is_random)
{
    std::mt19937_64 rng(1);
    std::vector<std::vector<token_id>> repeated;
    for (int s = 0; s < 3; ++s) repeated.push_back(detect::repeated_random_tokens(20, 100, 1, rng));
    const auto a = detect::attainable_on(repeated);
    BOOST_TEST(a.previous_token == 40.0 / 41.0, boost::test_tools::tolerance(1e-15));
    for (const double x : a.by_shift) BOOST_TEST(x == 20.0 / 41.0, boost::test_tools::tolerance(1e-15));
    const auto on_text = detect::text_behaviour_rules(a, 0.5), random = detect::behaviour_rules(20, 0.5);
    BOOST_TEST(on_text.size() == random.size());
    for (std::size_t i = 0; i < random.size(); ++i) {
        BOOST_TEST(on_text[i].name == random[i].name);
        BOOST_TEST(on_text[i].threshold == random[i].threshold, boost::test_tools::tolerance(1e-15));
    }
    // 1 5 5 7 5 9 7: queries 2 (5 at 1), 4 (5 at 1, 2), 6 (7 at 3) repeat. Shift -1: earliest target
    // needs a copy at >= 1, all three; shift 0 and 1: all three (a target may be the query itself);
    // shift 2: first copy + 2 <= i: query 4 (1 + 2) and 6 (3 + 2), not query 2 (1 + 2 > 2).
    const auto t = detect::attainable_on({{1, 5, 5, 7, 5, 9, 7}});
    BOOST_TEST(t.previous_token == 6.0 / 7.0, boost::test_tools::tolerance(1e-15));
    BOOST_TEST(t.by_shift[forward::shift_index(-1)] == 3.0 / 7.0, boost::test_tools::tolerance(1e-15));
    BOOST_TEST(t.by_shift[forward::shift_index(0)] == 3.0 / 7.0, boost::test_tools::tolerance(1e-15));
    BOOST_TEST(t.by_shift[forward::shift_index(1)] == 3.0 / 7.0, boost::test_tools::tolerance(1e-15));  // query 2's target is itself (1 + 1)
    BOOST_TEST(t.by_shift[forward::shift_index(2)] == 2.0 / 7.0, boost::test_tools::tolerance(1e-15));
    const auto rules = detect::text_behaviour_rules(t, 0.5);
    const auto threshold = [&](const std::string& name) {
        for (const auto& r : rules)
            if (r.name == name) return r.threshold;
        return -1.0;
    };
    BOOST_TEST(threshold("duplicate_token") == 1.5 / 7.0, boost::test_tools::tolerance(1e-15));
    BOOST_TEST(threshold("shifted_induction") == 1.5 / 7.0, boost::test_tools::tolerance(1e-15));
    // shift 3: first copy + 3 <= i: query 4 (1 + 3) and 6 (3 + 3); shift 4: none (1 + 4 > 4, 3 + 4 > 6).
    BOOST_TEST(threshold("repeat_shift_3") == 1.0 / 7.0, boost::test_tools::tolerance(1e-15));
    BOOST_TEST(threshold("repeat_shift_4") == 0.0, boost::test_tools::tolerance(1e-15));
    // Shifts 4 .. 8 have no target in this text (first copy + s > i for every repeat): undecidable; the rest decide.
    for (const auto& r : rules)
        BOOST_TEST(r.decidable == !(r.name.starts_with("repeat_shift_") && std::stoi(r.name.substr(13)) >= 4), r.name);
    detect::head_behaviour any;  // every score 0: a head that does nothing
    for (const auto& r : rules)
        if (r.name == "repeat_shift_4") BOOST_TEST((r.decide(any, 20) == detect::behaviour_decision::undecided), "a shift the text has no target for decides nothing");
    BOOST_TEST(contains(error_of([] { (void)detect::attainable_on({}); }), "at least one sequence"));
}

// On text the attention to BOS is averaged over the first half of the queries; on [BOS] + r + r
// before the first repeat (the same queries there). A head resting on BOS for queries 1 and 2 and on
// the previous token after, on 9 tokens whose first repeat is at 3: 2 / 2 before the repeat, 2 / 4
// over the first half; its previous-token score is the same either way.
BOOST_AUTO_TEST_CASE(attention_to_bos_on_text_is_over_the_first_half)
{
    const std::vector<token_id> tokens{1, 5, 6, 5, 7, 8, 9, 10, 11};
    forward::tensor2<double> p = xt::zeros<double>({9, 9});
    for (std::size_t i = 0; i < 9; ++i) p(i, i < 3 ? 0 : i - 1) = 1;
    BOOST_TEST(forward::detect(p, tokens).bos == 1.0);
    BOOST_TEST(forward::detect(p, tokens, forward::bos_queries::first_half).bos == 0.5);
    BOOST_TEST(forward::detect(p, tokens, forward::bos_queries::first_half).previous_token == 7.0 / 9.0);  // BOS is query 1's previous token
    // On [BOS] + r + r the two are the same queries.
    std::mt19937_64 rng(2);
    const auto repeated = detect::repeated_random_tokens(6, 50, 1, rng);
    forward::tensor2<double> u = xt::zeros<double>({13, 13});
    for (std::size_t i = 0; i < 13; ++i)
        for (std::size_t j = 0; j <= i; ++j) u(i, j) = 1.0 / double(i + 1);
    BOOST_TEST(forward::detect(u, repeated).bos == forward::detect(u, repeated, forward::bos_queries::first_half).bos);
}

// The detection on text of [BOS] + r + r sequences gives the random detection's scores (BOS over the
// same queries) and the same behaviours; a caller's sequences get BOS first and are refused when too
// short for the offsets, naming the sequence.
BOOST_AUTO_TEST_CASE(the_text_detection_of_repeated_tokens_is_the_random_detection)
{
    const auto dir = test::shared_dir_or_skip("fixtures/models/llama");
    if (dir.empty()) return;
    const auto model = qkov::runs::open_model(dir);
    const forward::decoder<double> pass(model);
    detect::detection_options o;
    o.length = 15, o.samples = 3, o.seed = 4;
    const auto random = detect::detect_heads(pass, o);
    std::mt19937_64 rng(4);
    std::vector<std::vector<std::size_t>> ids;
    for (int s = 0; s < 3; ++s) {
        const auto t = detect::repeated_random_tokens(15, model.config().vocab_size, random.bos, rng);
        ids.emplace_back(t.begin() + 1, t.end());  // BOS put back by text_sequences
    }
    const auto text = detect::detect_text(pass, {.input = "given sequences", .sequences = detect::text_sequences(ids, random.bos, "given sequences")}, o);
    BOOST_REQUIRE(text.has_value());
    BOOST_TEST(text->input == "given sequences");
    BOOST_TEST(text->sequences.size() == 3u);
    BOOST_TEST((text->first_sequence == random.first_sequence));
    for (std::size_t i = 0; i < random.per_head.size(); ++i) {
        const auto &a = random.per_head[i], &b = text->per_head[i];
        BOOST_TEST(a.previous_token.mean == b.previous_token.mean, boost::test_tools::tolerance(1e-15));
        BOOST_TEST(a.induction.spread == b.induction.spread, boost::test_tools::tolerance(1e-12));
        BOOST_TEST(a.by_offset[3].mean == b.by_offset[3].mean, boost::test_tools::tolerance(1e-15));
        BOOST_TEST(a.bos.mean == b.bos.mean, boost::test_tools::tolerance(1e-15));
        BOOST_TEST(a.copying->top1 == b.copying->top1);
        BOOST_TEST(a.behaviours == b.behaviours);
        BOOST_TEST(a.undecided == b.undecided);
    }
    // BOS is put first once: not again where a sequence starts with it.
    const std::vector<std::size_t> eight{5, 6, 7, 8, 9, 10, 11, 12};
    std::vector<std::size_t> with_bos{random.bos};
    with_bos.insert(with_bos.end(), eight.begin(), eight.end());
    BOOST_TEST(detect::text_sequences({eight, with_bos}, random.bos, "x")[0].size() == 9u);
    BOOST_TEST((detect::text_sequences({eight, with_bos}, random.bos, "x")[1] == detect::text_sequences({eight, with_bos}, random.bos, "x")[0]));
    BOOST_TEST(contains(error_of([&] { (void)detect::text_sequences({{5, 6, 7, 8, 9, 10, 11, 12}, {5, 6, 7}}, random.bos, "file short.txt"); }),
                        "file short.txt: sequence 2 has 4 tokens with BOS; the attention by offset 0 .. 8 needs at least 9"));
    BOOST_TEST(!detect::detect_text(pass, {}, o).has_value());
}

// A scan's labels are judged on the input they predict: random tokens always can be; own text only
// against own text; a calibration text only against a given text (a warning when the two differ);
// a document without "input" predicts random tokens.
BOOST_AUTO_TEST_CASE(a_scan_is_paired_with_the_behaviour_on_its_input)
{
    using detect::judged_on;
    const auto pair = [](const std::string& scan, const std::string& text) { return detect::pair_scan_with_detection(scan, text, "s.json"); };
    BOOST_TEST((pair("random tokens", "").on == judged_on::random_tokens));
    BOOST_TEST((pair("random tokens", "own text").on == judged_on::random_tokens));
    BOOST_TEST((pair("own text", "own text").on == judged_on::text));
    BOOST_TEST(contains(error_of([&] { (void)pair("own text", ""); }), "s.json predicts behaviour on the model's own text"));
    BOOST_TEST(contains(error_of([&] { (void)pair("own text", ""); }), "detect with --text self"));
    BOOST_TEST(contains(error_of([&] { (void)pair("own text", "file a.txt"); }), "this detection measures file a.txt"));
    BOOST_TEST((pair("file a.txt", "file a.txt").on == judged_on::text));
    BOOST_TEST(pair("file a.txt", "file a.txt").warning.empty());
    BOOST_TEST(contains(pair("file a.txt", "file b.txt").warning, "calibrated on file a.txt, the detection's text is file b.txt"));
    BOOST_TEST(contains(error_of([&] { (void)pair("file a.txt", "own text"); }), "detect with --text FILE"));
    BOOST_TEST(contains(error_of([&] { (void)pair("banana", ""); }), "\"input\" is \"banana\""));
    BOOST_TEST(detect::scan_input(nlohmann::json{{"heads", nlohmann::json::array()}}, "s.json") == "random tokens");
    BOOST_TEST(detect::scan_input(nlohmann::json{{"input", "own text"}}, "s.json") == "own text");
    BOOST_TEST(contains(error_of([] { (void)detect::scan_input(nlohmann::json{{"input", 3}}, "s.json"); }), "\"input\" is not a string"));
}

// The document with text written, read back and written again is the same; it holds every
// sequence's token ids and the comparison's input.
BOOST_AUTO_TEST_CASE(a_document_with_text_round_trips)
{
    const auto dir = test::shared_dir_or_skip("fixtures/models/gpt2");
    if (dir.empty()) return;
    const auto model = qkov::runs::open_model(dir);
    const forward::decoder<double> pass(model);
    detect::detection_options o;
    o.length = 10, o.samples = 2;
    detect::detection_document d;
    d.result = detect::detect_heads(pass, o);
    d.text = detect::detect_text(pass, {.input = "own text", .sequences = {}, .length = 20}, o);
    d.model = {{"layers", model.config().layers}, {"heads", model.config().heads}};
    d.dtype = "float64";
    d.compared = detect::compare_weights_with_behaviour({{0, 0, {"previous_token"}, {}, {}}}, *d.text);
    d.scan_file = "scan.json", d.compared_on = "own text";
    const auto written = detect::detection_json(d);
    BOOST_TEST(written["text"]["input"] == "own text");
    BOOST_TEST(written["text"]["tokens"].size() == 2u);
    BOOST_TEST(written["text"]["tokens"][0].size() == 21u);
    BOOST_TEST(written["comparison"]["input"] == "own text");
    const auto read = detect::read_detection_json(written);
    BOOST_REQUIRE(read.text.has_value());
    BOOST_TEST((read.text->sequences == d.text->sequences));
    BOOST_TEST(detect::detection_json(read) == written);
    d.text.reset();
    BOOST_TEST(detect::detection_json(d)["text"].is_null());
}
