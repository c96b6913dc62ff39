// The detectors' input (TransformerLens' detect_head setting): [BOS] + r + r, with r a seeded draw
// of `length` distinct token ids. Distinct tokens make the templates exact: a query in the second
// copy has exactly one earlier copy of its token (its duplicate, at i - length) and one token after
// that copy (its induction target, at i - length + 1); a query in the first copy has neither. BOS is
// never drawn, so it is never anyone's duplicate.
//
// The draw is a partial Fisher-Yates shuffle driven by std::mt19937_64 with a rejection-sampled
// bounded integer (not std::uniform_int_distribution, whose algorithm the standard leaves to the
// library): the same seed gives the same tokens on every platform.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/forward/token_id.hpp"
#include "qkov/numeric/uniform_below.hpp"

namespace qkov::detect {

using numeric::uniform_below;

using forward::token_id;


/// [bos] + r + r, r = `length` distinct ids drawn from [0, vocabulary) without bos.
/// Throws std::invalid_argument when length is 0 or the vocabulary has fewer than `length` ids
/// besides bos, or bos is outside the vocabulary.
inline std::vector<token_id> repeated_random_tokens(std::size_t length, std::size_t vocabulary, token_id bos, std::mt19937_64& rng)
{
    if (bos >= vocabulary)
        throw std::invalid_argument("qkov: the BOS token " + std::to_string(bos) + " is outside the vocabulary of " + std::to_string(vocabulary));
    if (length == 0) throw std::invalid_argument("qkov: a repeated sequence needs at least one random token");
    if (length > vocabulary - 1)
        throw std::invalid_argument("qkov: " + std::to_string(length) + " distinct random tokens, but the vocabulary has " + std::to_string(vocabulary - 1) +
                                    " besides BOS");
    std::vector<token_id> pool;
    pool.reserve(vocabulary - 1);
    for (std::size_t t = 0; t < vocabulary; ++t)
        if (t != bos) pool.push_back(static_cast<token_id>(t));
    for (std::size_t i = 0; i < length; ++i) std::swap(pool[i], pool[i + uniform_below(rng, pool.size() - i)]);
    std::vector<token_id> tokens;
    tokens.reserve(2 * length + 1);
    tokens.push_back(bos);
    for (int copy = 0; copy < 2; ++copy) tokens.insert(tokens.end(), pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(length));
    return tokens;
}

} // namespace qkov::detect
