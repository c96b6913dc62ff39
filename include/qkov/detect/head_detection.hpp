// Every head's behaviour on repeated random tokens: the previous-token, duplicate-token and
// induction scores of forward/head_detectors.hpp (TransformerLens' "mul" measure), averaged over
// seeded samples of [BOS] + r + r (repeated_tokens.hpp), with their spread, and the behaviours a
// head shows by the rule of docs/DETECT.md.
//
// What a score can reach depends on the sequence, not the head: on n = 2 |r| + 1 tokens a head that
// always attends to the previous token scores (n - 1) / n, one that always attends to the earlier
// copy of its token |r| / n (only the second copy's |r| queries have one), an induction head
// likewise |r| / n. A head "shows" a behaviour when its mean score reaches a fixed fraction (one
// half by default) of what that behaviour can reach: more than half of the attention it could put
// on the template is there. The fraction is a principle, not fitted to a model.
//
// The patterns stream past (forward_pass.hpp's visitor): per sample only the n x n pattern of the
// head being computed is alive, and the pass stops at the last block (no unembedding).
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
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

struct detection_options {
    std::size_t length = 50;              ///< |r|: the sequence is 2 |r| + 1 tokens
    std::size_t samples = 10;             ///< independent draws of r
    std::uint64_t seed = 0;               ///< of std::mt19937_64; sample k continues the same generator
    std::optional<token_id> bos{};        ///< unset: the model's own (model_config::bos_token_id)
    double behaviour_fraction = 0.5;      ///< a head shows a behaviour at this fraction of its attainable score
    std::function<void(std::size_t done, std::size_t samples)> on_sample{};  ///< progress, after each sample
};

/// Mean and spread of one score over the samples; spread is the sample standard deviation
/// (divisor samples - 1), 0 for a single sample.
struct score_statistics {
    double mean = 0, spread = 0;
};

/// The three detectors' names, in the order every table and figure lists them.
inline constexpr const char* behaviour_names[] = {"previous_token", "duplicate_token", "induction"};

struct head_behaviour {
    std::size_t layer = 0, head = 0;
    score_statistics previous_token, duplicate_token, induction;
    std::vector<std::string> behaviours;  ///< those of behaviour_names whose mean reaches the threshold

    [[nodiscard]] const score_statistics& score(std::size_t k) const
    {
        return k == 0 ? previous_token : k == 1 ? duplicate_token : induction;
    }
    [[nodiscard]] bool shows(const std::string& behaviour) const
    {
        for (const auto& b : behaviours)
            if (b == behaviour) return true;
        return false;
    }
};

struct detection_result {
    std::size_t layers = 0, heads = 0, length = 0, samples = 0, vocabulary = 0;
    std::uint64_t seed = 0;
    token_id bos = 0;
    double behaviour_fraction = 0.5;
    double attainable[3] = {0, 0, 0};  ///< per behaviour_names: what a head doing only that scores
    std::vector<head_behaviour> per_head;  ///< layer-major, every head of the model
    std::vector<token_id> first_sequence;  ///< sample 0's tokens, for what is drawn from one run

    [[nodiscard]] double threshold(std::size_t k) const { return behaviour_fraction * attainable[k]; }

    /// The head at (layer, head), or nullptr outside the model (per_head is layer-major).
    [[nodiscard]] const head_behaviour* find(std::size_t layer, std::size_t head) const
    {
        return layer < layers && head < heads && layer * heads + head < per_head.size() ? &per_head[layer * heads + head] : nullptr;
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

    // Welford's running mean and sum of squared deviations, per head and score.
    struct running {
        double mean = 0, squares = 0;
    };
    std::vector<running> acc(c.layers * c.heads * 3);
    std::mt19937_64 rng(o.seed);
    std::vector<std::vector<forward::head_scores>> scores;
    for (std::size_t s = 0; s < o.samples; ++s) {
        const auto tokens = repeated_random_tokens(o.length, c.vocab_size, r.bos, rng);
        if (s == 0) r.first_sequence = tokens;
        (void)pass.residual_stream(tokens, forward::score_heads<T>(scores, tokens, c.layers, c.heads));
        for (std::size_t l = 0; l < c.layers; ++l)
            for (std::size_t h = 0; h < c.heads; ++h) {
                const auto& x = scores[l][h];
                const double values[3] = {x.previous_token, x.duplicate_token, x.induction};
                for (std::size_t k = 0; k < 3; ++k) {
                    auto& a = acc[(l * c.heads + h) * 3 + k];
                    const double delta = values[k] - a.mean;
                    a.mean += delta / static_cast<double>(s + 1);
                    a.squares += delta * (values[k] - a.mean);
                }
            }
        if (o.on_sample) o.on_sample(s + 1, o.samples);
    }
    for (std::size_t l = 0; l < c.layers; ++l)
        for (std::size_t h = 0; h < c.heads; ++h) {
            head_behaviour b;
            b.layer = l, b.head = h;
            score_statistics* stats[3] = {&b.previous_token, &b.duplicate_token, &b.induction};
            for (std::size_t k = 0; k < 3; ++k) {
                const auto& a = acc[(l * c.heads + h) * 3 + k];
                stats[k]->mean = a.mean;
                stats[k]->spread = o.samples > 1 ? std::sqrt(std::max(0.0, a.squares) / static_cast<double>(o.samples - 1)) : 0.0;
                if (a.mean >= r.threshold(k)) b.behaviours.emplace_back(behaviour_names[k]);
            }
            r.per_head.push_back(std::move(b));
        }
    return r;
}

} // namespace qkov::detect
