// Every head's behaviour on repeated random tokens: the scores of forward/head_detectors.hpp
// (TransformerLens' previous-token, duplicate-token and induction scores, repeat attention by shift,
// attention to BOS and by offset, copying through the head's own logits), averaged over seeded
// samples of [BOS] + r + r (repeated_tokens.hpp), with their spread, and the behaviours a head
// shows by the rules of behaviour_rules() (one row per behaviour; docs/DETECT.md).
//
// What a score can reach depends on the sequence, not the head: on n = 2 |r| + 1 tokens a head that
// always attends to the previous token scores (n - 1) / n, one that always attends to the earlier
// copy of its token |r| / n (only the second copy's |r| queries have one), an induction head
// likewise |r| / n. A head "shows" a behaviour when its mean score reaches a fixed fraction (one
// half by default) of what that behaviour can reach: more than half of the attention it could put
// on the template is there. The fraction is a principle, not fitted to a model.
//
// The patterns stream past (forward_pass.hpp's visitor): per sample only the n x n pattern of the
// head being computed is alive, and the pass stops at the last block (no unembedding). Copying needs
// each head's V x d map into logits, found once per detection: L H V d numbers in memory.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/detect/repeated_tokens.hpp"
#include "qkov/forward/head_detectors.hpp"

namespace qkov::detect {

/// What runs the model: its configuration, and a pass over a token sequence that hands every
/// (layer, head) pattern to a visitor. forward::decoder<T> is one; tests plant patterns with another.
template <class P>
concept pattern_source = requires(const P& p, std::span<const token_id> tokens, const forward::pattern_visitor<typename P::scalar>& visit) {
    { p.config() } -> std::convertible_to<const io::model_config&>;
    p.residual_stream(tokens, visit);
};

/// A pattern source that also hands over each head's values and its map into logits, so the
/// detection can see what a head copies (forward::decoder<T> is one).
template <class P>
concept copying_source = pattern_source<P> && requires(const P& p, std::span<const token_id> tokens, const forward::pattern_visitor<typename P::scalar>& visit,
                                                       const forward::value_visitor<typename P::scalar>& visit_values, std::size_t i) {
    p.residual_stream(tokens, visit, visit_values);
    { p.head_unembedding(i, i) } -> std::convertible_to<forward::tensor2<typename P::scalar>>;
};

struct detection_options {
    std::size_t length = 50;              ///< |r|: the sequence is 2 |r| + 1 tokens
    std::size_t samples = 10;             ///< independent draws of r
    std::uint64_t seed = 0;               ///< of std::mt19937_64; sample k continues the same generator
    std::optional<token_id> bos{};        ///< unset: the model's own (model_config::bos_token_id)
    double behaviour_fraction = 0.5;      ///< a head shows a behaviour at this fraction of its attainable score
    bool copying = true;                  ///< measure copying when the pass can (copying_source)
    std::size_t copying_memory = std::size_t{1} << 30;  ///< bytes the heads' V x d maps into logits may take
    std::function<void(std::size_t done, std::size_t samples)> on_sample{};  ///< progress, after each sample
};

/// Mean and spread of one score over the samples; spread is the sample standard deviation
/// (divisor samples - 1), 0 for a single sample.
struct score_statistics {
    double mean = 0, spread = 0;
};

/// TransformerLens' three scores, in the order the score maps (detection_figures.hpp) list them.
inline constexpr const char* behaviour_names[] = {"previous_token", "duplicate_token", "induction"};

/// One head's scores over the samples (forward::score_set's fields) and the behaviours it shows.
struct head_behaviour : forward::score_set<score_statistics> {
    std::size_t layer = 0, head = 0;
    std::optional<forward::copy_counts> copying;                             ///< pooled over the samples; unset when not measured
    std::vector<std::string> behaviours;  ///< the behaviour_rules() this head meets, in their order

    [[nodiscard]] const score_statistics& score(std::size_t k) const
    {
        return k == 0 ? previous_token : k == 1 ? duplicate_token : induction;
    }
    [[nodiscard]] const score_statistics& shift(int s) const { return by_shift.at(forward::shift_index(s)); }
    [[nodiscard]] bool shows(const std::string& behaviour) const
    {
        for (const auto& b : behaviours)
            if (b == behaviour) return true;
        return false;
    }
};

/// One behaviour a head can show: the number compared, its threshold and why the threshold is there.
/// A new detector is one row of behaviour_rules() plus its value.
struct behaviour_rule {
    std::string name, measure, reason;
    double threshold = 0;
    std::function<std::optional<double>(const head_behaviour&)> value;  ///< nullopt: not measured on that head

    [[nodiscard]] bool shown_by(const head_behaviour& h) const
    {
        const auto v = value(h);
        return v && *v >= threshold;
    }
};

/// The largest offset means' sum, the two of them: how much of the attention position alone explains.
inline double top_two_offsets(const head_behaviour& h)
{
    std::array<double, forward::largest_offset + 1> means{};
    for (std::size_t k = 0; k < means.size(); ++k) means[k] = h.by_offset[k].mean;
    std::partial_sort(means.begin(), means.begin() + 2, means.end(), std::greater<>());
    return means[0] + means[1];
}

/// The sink threshold of Gu et al. 2024 ("When attention sink emerges in language models"): a head
/// whose queries give BOS at least this much attention on average.
inline constexpr double sink_threshold = 0.3;

/// Every behaviour the detection can report, in the order tables list them. `length` is |r|,
/// `fraction` the share of an attainable score that counts as showing (one half: a majority).
inline std::vector<behaviour_rule> behaviour_rules(std::size_t length, double fraction)
{
    const double n = 2.0 * static_cast<double>(length) + 1, previous = (n - 1) / n, repeat = static_cast<double>(length) / n;
    const auto mean_of = [](score_statistics head_behaviour::* member) {
        return [member](const head_behaviour& h) -> std::optional<double> { return (h.*member).mean; };
    };
    const std::string majority = "a majority of the attention a head could put there";
    std::vector<behaviour_rule> rules{
        {"previous_token", "TransformerLens' previous-token score", majority + " ((n - 1) / n: every query but BOS has a previous token)",
         fraction * previous, mean_of(&head_behaviour::previous_token)},
        {"duplicate_token", "TransformerLens' duplicate-token score", majority + " (|r| / n: only the second copy has an earlier copy)", fraction * repeat,
         mean_of(&head_behaviour::duplicate_token)},
        {"induction", "TransformerLens' induction score", majority + " (|r| / n)", fraction * repeat, mean_of(&head_behaviour::induction)},
        {"shifted_induction", "the larger repeat score of shifts -1 and 2 (one before, two after the earlier copy)",
         majority + " (|r| / n); TransformerLens' induction score misses heads that read two after the earlier copy and copy by V-composition",
         fraction * repeat, [](const head_behaviour& h) -> std::optional<double> { return std::max(h.shift(-1).mean, h.shift(2).mean); }},
        {"sink", "mean attention to BOS over queries 1 .. |r| (the first copy: random text)", "the attention-sink threshold of Gu et al. 2024", sink_threshold,
         mean_of(&head_behaviour::bos)},
    };
    for (std::size_t k = 0; k <= forward::largest_offset; ++k) {
        if (k == 1) continue;  // offset 1 is previous_token
        rules.push_back({"offset_" + std::to_string(k), "mean A[i, i - " + std::to_string(k) + "] over queries i >= " + std::to_string(forward::largest_offset),
                         "a majority of every query's attention at one offset", fraction,
                         [k](const head_behaviour& h) -> std::optional<double> { return h.by_offset[k].mean; }});
    }
    rules.push_back({"positional", "the two largest means of attention by offset 0 .. " + std::to_string(forward::largest_offset) + ", summed",
                     "a majority of every query's attention at two fixed offsets", fraction,
                     [](const head_behaviour& h) -> std::optional<double> { return top_two_offsets(h); }});
    rules.push_back({"copy", "share of queries (most-attended key not BOS) whose most-attended token is the head's top-1 logit",
                     "a majority of the queries", fraction, [](const head_behaviour& h) -> std::optional<double> {
                         if (!h.copying || h.copying->queries == 0) return std::nullopt;  // a head resting on BOS reads no token
                         return h.copying->top1_share();
                     }});
    rules.push_back({"copy_suppression",
                     "share of queries (most-attended key not BOS) whose most-attended token is among the head's " +
                         std::to_string(forward::copy_bottom_ranks) + " lowest logits",
                     "a majority of the queries", fraction, [](const head_behaviour& h) -> std::optional<double> {
                         if (!h.copying || h.copying->queries == 0) return std::nullopt;
                         return h.copying->bottom_share();
                     }});
    return rules;
}

struct detection_result {
    std::size_t layers = 0, heads = 0, length = 0, samples = 0, vocabulary = 0;
    std::uint64_t seed = 0;
    token_id bos = 0;
    double behaviour_fraction = 0.5;
    double attainable[3] = {0, 0, 0};  ///< per behaviour_names: what a head doing only that scores
    std::vector<behaviour_rule> rules;     ///< behaviour_rules(length, behaviour_fraction)
    std::vector<head_behaviour> per_head;  ///< layer-major, every head of the model
    std::vector<token_id> first_sequence;  ///< sample 0's tokens, for what is drawn from one run
    std::string copying_not_measured;      ///< why copying was not measured; empty when it was

    [[nodiscard]] double threshold(std::size_t k) const { return behaviour_fraction * attainable[k]; }

    /// The head at (layer, head), or nullptr outside the model (per_head is layer-major).
    [[nodiscard]] const head_behaviour* find(std::size_t layer, std::size_t head) const
    {
        return layer < layers && head < heads && layer * heads + head < per_head.size() ? &per_head[layer * heads + head] : nullptr;
    }
    /// The rule named `name`, or nullptr.
    [[nodiscard]] const behaviour_rule* rule(const std::string& name) const
    {
        for (const auto& r : rules)
            if (r.name == name) return &r;
        return nullptr;
    }
};

/// The BOS token a detection uses: the option, else the model's; an error naming both ways otherwise.
inline token_id detection_bos(const detection_options& o, const io::model_config& c)
{
    if (o.bos) return *o.bos;
    if (c.bos_token_id) return static_cast<token_id>(*c.bos_token_id);
    throw std::invalid_argument("qkov: the model file declares no BOS token (bos_token_id); name one with --bos");
}


template <pattern_source Pass>
detection_result detect_heads(const Pass& pass, const detection_options& o)
{
    using T = typename Pass::scalar;
    const io::model_config& c = pass.config();
    if (o.samples == 0) throw std::invalid_argument("qkov: a detection needs at least one sample");
    if (!(o.behaviour_fraction > 0 && o.behaviour_fraction <= 1))
        throw std::invalid_argument("qkov: the behaviour threshold is a fraction in (0, 1] of the attainable score");
    detection_result r;
    r.layers = c.layers, r.heads = c.heads, r.length = o.length, r.samples = o.samples, r.vocabulary = c.vocab_size, r.seed = o.seed;
    r.bos = detection_bos(o, c);
    r.behaviour_fraction = o.behaviour_fraction;
    const double n = 2.0 * static_cast<double>(o.length) + 1;
    r.attainable[0] = (n - 1) / n, r.attainable[1] = r.attainable[2] = static_cast<double>(o.length) / n;
    r.rules = behaviour_rules(o.length, o.behaviour_fraction);

    // Each head's map into logits, once for all samples (the copying detector's only weight).
    std::vector<std::vector<forward::tensor2<T>>> head_unembeddings;
    const std::size_t maps = c.layers * c.heads * c.vocab_size * c.head_dim * sizeof(T);
    if (!copying_source<Pass>) r.copying_not_measured = "the pass gives no values";
    else if (!o.copying) r.copying_not_measured = "not asked for";
    else if (maps > o.copying_memory)
        r.copying_not_measured = "the heads' maps into logits would take " + std::to_string(maps) + " bytes, over the " +
                                 std::to_string(o.copying_memory) + " allowed";
    if constexpr (copying_source<Pass>)
        if (r.copying_not_measured.empty()) {
            head_unembeddings.resize(c.layers);
            for (std::size_t l = 0; l < c.layers; ++l)
                for (std::size_t h = 0; h < c.heads; ++h) head_unembeddings[l].push_back(pass.head_unembedding(l, h));
        }
    const bool copying = !head_unembeddings.empty();

    // Welford's running mean and sum of squared deviations, per head and score.
    struct running {
        double mean = 0, squares = 0;
    };
    struct head_accumulator : forward::score_set<running> {
        forward::copy_counts copying;
    };
    std::vector<head_accumulator> acc(c.layers * c.heads);
    std::mt19937_64 rng(o.seed);
    std::vector<std::vector<forward::head_scores>> scores;
    for (std::size_t s = 0; s < o.samples; ++s) {
        const auto tokens = repeated_random_tokens(o.length, c.vocab_size, r.bos, rng);
        if (s == 0) r.first_sequence = tokens;
        bool scored = false;  // with the values when copying is measured, from the patterns alone otherwise
        if constexpr (copying_source<Pass>)
            if (copying) (void)pass.residual_stream(tokens, {}, forward::score_and_copy_heads<T>(scores, tokens, head_unembeddings)), scored = true;
        if (!scored) (void)pass.residual_stream(tokens, forward::score_heads<T>(scores, tokens, c.layers, c.heads));
        for (std::size_t l = 0; l < c.layers; ++l)
            for (std::size_t h = 0; h < c.heads; ++h) {
                auto& a = acc[l * c.heads + h];
                forward::for_each_score(scores[l][h], a, [s](double value, running& x) {
                    const double delta = value - x.mean;
                    x.mean += delta / static_cast<double>(s + 1);
                    x.squares += delta * (value - x.mean);
                });
                a.copying += scores[l][h].copying;
            }
        if (o.on_sample) o.on_sample(s + 1, o.samples);
    }
    for (std::size_t l = 0; l < c.layers; ++l)
        for (std::size_t h = 0; h < c.heads; ++h) {
            head_behaviour b;
            b.layer = l, b.head = h;
            const auto& a = acc[l * c.heads + h];
            forward::for_each_score(a, b, [&o](const running& x, score_statistics& stats) {
                stats.mean = x.mean;
                stats.spread = o.samples > 1 ? std::sqrt(std::max(0.0, x.squares) / static_cast<double>(o.samples - 1)) : 0.0;
            });
            if (copying) b.copying = a.copying;
            for (const auto& rule : r.rules)
                if (rule.shown_by(b)) b.behaviours.push_back(rule.name);
            r.per_head.push_back(std::move(b));
        }
    return r;
}

} // namespace qkov::detect
