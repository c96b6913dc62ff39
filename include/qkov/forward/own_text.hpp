// Text the model writes itself: from BOS, each next token drawn from the softmax of the model's
// logits at temperature 1 (the model's own distribution, neither sharpened nor flattened), written
// through the key/value cache (kv_cache.hpp), so each token costs one position's pass.
//
// Seeded and reproducible on every platform: sequence k has its own std::mt19937_64, seeded through
// std::seed_seq from the seed's and k's 32-bit halves (both algorithms fixed by the standard), and a
// draw is 53 bits of it as a double in [0, 1), mapped to a token by the inverse of the cumulative
// distribution in token order. So sequence k depends on the seed and k alone: the first K sequences of
// a larger draw are the same, however many run side by side. (Float32 and float64 passes may differ
// in a last bit of a probability, and so, rarely, in a token: the same seed gives the same text in
// the same dtype.) Generation never stops early: a sequence is [BOS] + `length` tokens, whatever they
// are (a story's end and the next one's start included), so every sequence has the same length.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/forward/head_scores.hpp"
#include "qkov/forward/kv_cache.hpp"

namespace qkov::forward {

/// The shortest own text qkov writes (tokens after BOS): the detection's attention by offset 0 .. 8
/// is measured over queries i >= 8, so a sequence needs BOS and 8 tokens after it.
inline constexpr std::size_t shortest_own_text = largest_offset;
/// The longest: the pass's longest float64 sequence, BOS included.
inline constexpr std::size_t longest_own_text = decoder<double>::largest_sequence - 1;

/// Throws, naming `option`, unless own text of `length` tokens after BOS fits the pass's model:
/// within shortest_own_text .. longest_own_text, its context and its learned positions.
template <class T>
void check_own_text_length(const decoder<T>& pass, std::size_t length, const std::string& option)
{
    if (length < shortest_own_text || length > longest_own_text)
        throw std::invalid_argument("qkov: " + option + " " + std::to_string(length) + ": expected " + std::to_string(shortest_own_text) + " .. " +
                                    std::to_string(longest_own_text) + " tokens after BOS (the attention by offset 0 .. " + std::to_string(largest_offset) +
                                    " needs " + std::to_string(shortest_own_text) + ")");
    const auto limit = [&](std::size_t most, const char* what) {
        if (most != 0 && length + 1 > most)
            throw std::invalid_argument("qkov: " + option + " " + std::to_string(length) + " makes sequences of " + std::to_string(length + 1) +
                                        " tokens, but the model has " + what + " " + std::to_string(most));
    };
    limit(pass.config().max_positions, "a context of");
    const auto& positions = pass.weights().positions;
    limit(positions.size() == 0 ? 0 : positions.shape()[0], "learned positions for");
}

struct own_text_options {
    std::size_t sequences = 10;  ///< how many sequences
    std::size_t length = 100;    ///< tokens written after BOS: each sequence is length + 1 tokens
    std::uint64_t seed = 0;
    token_id bos = 0;            ///< the token every sequence starts from
    std::size_t cache_memory = std::size_t{256} << 20;  ///< bytes the sequences run side by side may keep as keys and values
};

/// A uniform double in [0, 1): the top 53 bits of one draw, the same on every platform.
inline double unit_uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

/// The generator of sequence k under `seed`.
inline std::mt19937_64 sequence_generator(std::uint64_t seed, std::uint64_t k)
{
    std::seed_seq s{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32), static_cast<std::uint32_t>(k),
                    static_cast<std::uint32_t>(k >> 32)};
    return std::mt19937_64(s);
}

/// The token whose cumulative probability first exceeds u (in [0, 1)) under softmax(logits),
/// temperature 1, summed in double in token order. Rounding can leave u * total past the last sum:
/// then the last token of positive probability. Non-finite logits are refused.
template <class T>
token_id sample_token(std::span<const T> logits, double u)
{
    if (logits.empty()) throw std::invalid_argument("qkov: no logits to sample a token from");
    if (!(u >= 0 && u < 1)) throw std::invalid_argument("qkov: a sampling draw must lie in [0, 1)");
    double top = -INFINITY;
    for (const T l : logits) {
        if (!std::isfinite(l)) throw std::runtime_error("qkov: a logit to sample from is not finite");
        top = std::max(top, static_cast<double>(l));
    }
    double total = 0;
    for (const T l : logits) total += std::exp(static_cast<double>(l) - top);
    const double target = u * total;
    double cumulative = 0;
    std::size_t last = 0;
    for (std::size_t j = 0; j < logits.size(); ++j) {
        const double p = std::exp(static_cast<double>(logits[j]) - top);
        if (p > 0) last = j;
        cumulative += p;
        if (cumulative > target) return static_cast<token_id>(j);
    }
    return static_cast<token_id>(last);
}

/// Sequences [BOS] + `length` tokens the model writes at temperature 1 (see the top of the file).
template <class T>
std::vector<std::vector<token_id>> sample_own_text(const decoder<T>& pass, const own_text_options& o)
{
    const auto& c = pass.config();
    if (o.sequences == 0) throw std::invalid_argument("qkov: own text needs at least one sequence");
    check_own_text_length(pass, o.length, "the own text's length");
    if (o.bos >= pass.vocabulary())
        throw std::invalid_argument("qkov: the BOS token " + std::to_string(o.bos) + " is outside the vocabulary of " + std::to_string(pass.vocabulary()));
    // The last token is drawn, never run: the cache holds BOS and the first length - 1 tokens.
    const std::size_t capacity = o.length;
    const std::size_t per_sequence = 2 * c.layers * c.kv_heads * c.head_dim * capacity * sizeof(T);
    const std::size_t side_by_side = std::clamp<std::size_t>(o.cache_memory / std::max<std::size_t>(per_sequence, 1), 1, o.sequences);
    std::vector<std::vector<token_id>> out;
    out.reserve(o.sequences);
    for (std::size_t first = 0; first < o.sequences; first += side_by_side) {
        const std::size_t S = std::min(side_by_side, o.sequences - first);
        std::vector<std::mt19937_64> rngs;
        for (std::size_t s = 0; s < S; ++s) rngs.push_back(sequence_generator(o.seed, first + s));
        std::vector<std::vector<token_id>> batch(S, std::vector<token_id>{o.bos});
        kv_cache<T> cache(pass, S, capacity);
        std::vector<token_id> next(S, o.bos);
        for (std::size_t step = 0; step < o.length; ++step) {
            const tensor2<T> logits = cache.step(next);
            const std::size_t V = logits.shape()[1];
            for (std::size_t s = 0; s < S; ++s) {
                next[s] = sample_token(std::span<const T>(logits.data() + s * V, V), unit_uniform(rngs[s]));
                batch[s].push_back(next[s]);
            }
        }
        for (auto& b : batch) out.push_back(std::move(b));
    }
    return out;
}

} // namespace qkov::forward
