// Every head's behaviour on repeated random tokens, or on text (detect_heads_on_text): the scores of forward/head_detectors.hpp
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
// on the template is there. The fraction is a principle, not fitted to a model. The mean comes from
// a few sequences, so a head whose mean's 95 % interval holds the threshold is undecided on that
// behaviour (behaviour_rules.hpp).
//
// The patterns stream past (forward_pass.hpp's visitor): per sample only the n x n pattern of the
// head being computed is alive, and the pass stops at the last block (no unembedding). Copying keeps
// each head's outputs at the queries that read a token (L H d numbers per token) and ranks them
// after the samples, a layer at a time with the vocabulary streamed (forward/copy_tally.hpp).
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

#include "qkov/detect/behaviour_rules.hpp"
#include "qkov/detect/detection_options.hpp"
#include "qkov/detect/detection_result.hpp"
#include "qkov/detect/head_behaviour.hpp"
#include "qkov/detect/repeated_tokens.hpp"
#include "qkov/detect/text_behaviour.hpp"
#include "qkov/forward/copy_tally.hpp"
#include "qkov/forward/head_detectors.hpp"

namespace qkov::detect {

/// What runs the model: its configuration, and a pass over a token sequence that hands every
/// (layer, head) pattern to a visitor. forward::decoder<T> is one; tests plant patterns with another.
template <class P>
concept pattern_source = requires(const P& p, std::span<const token_id> tokens, const forward::pattern_visitor<typename P::scalar>& visit) {
    { p.config() } -> std::convertible_to<const io::model_config&>;
    p.residual_stream(tokens, visit);
};

/// A pattern source that also hands over each head's values and, a block of vocabulary rows at a
/// time, every head's map into logits, so the detection can see what a head copies
/// (forward::decoder<T> is one).
template <class P>
concept copying_source = pattern_source<P> && requires(const P& p, std::span<const token_id> tokens, const forward::pattern_visitor<typename P::scalar>& visit,
                                                       const forward::value_visitor<typename P::scalar>& visit_values, std::size_t i,
                                                       const std::function<void(std::size_t, const forward::tensor2<typename P::scalar>&)>& block) {
    p.residual_stream(tokens, visit, visit_values);
    p.for_each_head_unembedding_block(i, block);
    { p.vocabulary() } -> std::convertible_to<std::size_t>;
};

/// The BOS token a detection uses: the option, else the model's; an error naming both ways otherwise.
inline token_id detection_bos(const detection_options& o, const io::model_config& c)
{
    if (o.bos) return *o.bos;
    if (c.bos_token_id) return static_cast<token_id>(*c.bos_token_id);
    throw std::invalid_argument("qkov: the model file declares no BOS token (bos_token_id); name one with --bos");
}


namespace detail {

/// Every head's scores over o.samples sequences (sequence(s) gives sample s's tokens, `tokens` of
/// them in all) into r, whose rules, samples and sequence settings the caller has set: the means
/// and spreads, the pooled copying and the behaviours each head shows by r.rules. One loop for
/// random tokens and for text.
template <pattern_source Pass>
void measure_heads(const Pass& pass, const detection_options& o, detection_result& r,
                   const std::function<std::vector<token_id>(std::size_t)>& sequence, std::size_t tokens, forward::bos_queries bos)
{
    using T = typename Pass::scalar;
    const io::model_config& c = pass.config();

    // Copying: each head's outputs at the queries that read a token are kept over the samples, then
    // ranked against its logits with the vocabulary streamed (forward/copy_tally.hpp).
    const std::size_t kept = forward::copy_tally<T>::bytes_for(c.layers, c.heads, c.head_dim, tokens);
    if (!copying_source<Pass>) r.copying_not_measured = "the pass gives no values";
    else if (!o.copying) r.copying_not_measured = "not asked for";
    else if (kept > o.copying_memory)
        r.copying_not_measured = "the heads' outputs kept for ranking would take " + std::to_string(kept) + " bytes, over the " +
                                 std::to_string(o.copying_memory) + " allowed";
    std::optional<forward::copy_tally<T>> tally;
    if (r.copying_not_measured.empty()) tally.emplace(c.layers, c.heads, c.head_dim);

    // Welford's running mean and sum of squared deviations, per head and score.
    struct running {
        double mean = 0, squares = 0;
    };
    struct head_accumulator : forward::score_set<running> {
        forward::copy_counts copying;
    };
    std::vector<head_accumulator> acc(c.layers * c.heads);
    std::vector<std::vector<forward::head_scores>> scores;
    for (std::size_t s = 0; s < r.samples; ++s) {
        const auto sample = sequence(s);
        if (s == 0) r.first_sequence = sample;
        const auto score = forward::score_heads<T>(scores, sample, c.layers, c.heads, bos);
        bool scored = false;  // with the values when copying is measured, from the patterns alone otherwise
        if constexpr (copying_source<Pass>)
            if (tally) {
                (void)pass.residual_stream(sample, {}, [&](std::size_t l, std::size_t h, const forward::tensor2<T>& p, const forward::tensor2<T>& values) {
                    score(l, h, p);
                    tally->add(l, h, p, values, sample);
                });
                scored = true;
            }
        if (!scored) (void)pass.residual_stream(sample, score);
        for (std::size_t l = 0; l < c.layers; ++l)
            for (std::size_t h = 0; h < c.heads; ++h)
                forward::for_each_score(scores[l][h], acc[l * c.heads + h], [s](double value, running& x) {
                    const double delta = value - x.mean;
                    x.mean += delta / static_cast<double>(s + 1);
                    x.squares += delta * (value - x.mean);
                });
        if (o.on_sample) o.on_sample(s + 1, r.samples);
    }
    if constexpr (copying_source<Pass>)
        if (tally)
            for (std::size_t l = 0; l < c.layers; ++l) {
                const auto counts = tally->count_layer(l, pass.vocabulary(), [&](const auto& f) { pass.for_each_head_unembedding_block(l, f); });
                for (std::size_t h = 0; h < c.heads; ++h) acc[l * c.heads + h].copying = counts[h];
                if (o.on_copying_layer) o.on_copying_layer(l + 1, c.layers);
            }
    for (std::size_t l = 0; l < c.layers; ++l)
        for (std::size_t h = 0; h < c.heads; ++h) {
            head_behaviour b;
            b.layer = l, b.head = h;
            const auto& a = acc[l * c.heads + h];
            forward::for_each_score(a, b, [&r](const running& x, score_statistics& stats) {
                stats.mean = x.mean;
                stats.spread = r.samples > 1 ? std::sqrt(std::max(0.0, x.squares) / static_cast<double>(r.samples - 1)) : 0.0;
            });
            if (tally) b.copying = a.copying;
            for (const auto& rule : r.rules) switch (rule.decide(b, r.samples)) {
                case behaviour_decision::shown: b.behaviours.push_back(rule.name); break;
                case behaviour_decision::undecided: b.undecided.push_back(rule.name); break;
                case behaviour_decision::absent: break;
                }
            r.per_head.push_back(std::move(b));
        }
}

inline void require_fraction(const detection_options& o)
{
    if (!(o.behaviour_fraction > 0 && o.behaviour_fraction <= 1))
        throw std::invalid_argument("qkov: the behaviour threshold is a fraction in (0, 1] of the attainable score");
}

} // namespace detail

template <pattern_source Pass>
detection_result detect_heads(const Pass& pass, const detection_options& o)
{
    const io::model_config& c = pass.config();
    if (o.samples == 0) throw std::invalid_argument("qkov: a detection needs at least one sample");
    detail::require_fraction(o);
    detection_result r;
    r.layers = c.layers, r.heads = c.heads, r.length = o.length, r.samples = o.samples, r.vocabulary = c.vocab_size, r.seed = o.seed;
    r.bos = detection_bos(o, c);
    r.behaviour_fraction = o.behaviour_fraction;
    const double n = 2.0 * static_cast<double>(o.length) + 1;
    r.attainable[0] = (n - 1) / n, r.attainable[1] = r.attainable[2] = static_cast<double>(o.length) / n;
    r.rules = behaviour_rules(o.length, o.behaviour_fraction);
    std::mt19937_64 rng(o.seed);
    detail::measure_heads(pass, o, r, [&](std::size_t) { return repeated_random_tokens(o.length, c.vocab_size, r.bos, rng); },
                          o.samples * (2 * o.length + 1), forward::bos_queries::before_first_repeat);
    return r;
}

/// Every head's behaviour on text: `sequences` (each starting with BOS, as the pass reads them),
/// named `input` (scan_json_keys' words: own text, file PATH, given sequences); o.seed is recorded
/// as the seed the text was drawn with (own text), o.length and o.samples are not read. The same
/// scores as on random tokens, attention to BOS over the first half of each sequence, and the rules of
/// text_behaviour.hpp, whose attainable scores are the text's.
template <pattern_source Pass>
detection_result detect_heads_on_text(const Pass& pass, const std::vector<std::vector<token_id>>& sequences, const std::string& input,
                                      const detection_options& o)
{
    const io::model_config& c = pass.config();
    detail::require_fraction(o);
    detection_result r;
    r.input = input;
    r.layers = c.layers, r.heads = c.heads, r.length = 0, r.samples = sequences.size(), r.vocabulary = c.vocab_size, r.seed = o.seed;
    r.bos = detection_bos(o, c);
    r.behaviour_fraction = o.behaviour_fraction;
    const auto attainable = attainable_on(sequences);  // refuses an empty text
    r.attainable[0] = attainable.previous_token;
    r.attainable[1] = attainable.by_shift[forward::shift_index(0)], r.attainable[2] = attainable.by_shift[forward::shift_index(1)];
    r.rules = text_behaviour_rules(attainable, o.behaviour_fraction);
    r.sequences = sequences;
    std::size_t tokens = 0;
    for (const auto& t : sequences) tokens += t.size();
    detail::measure_heads(pass, o, r, [&](std::size_t s) { return sequences[s]; }, tokens, forward::bos_queries::first_half);
    return r;
}

} // namespace qkov::detect
