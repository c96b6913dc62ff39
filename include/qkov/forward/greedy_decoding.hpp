// Greedy (temperature 0) continuation of a token sequence, as llama2.c's run does it: at each
// step the next token is the first index of the largest logit at the last position; generation
// stops after max_new tokens or before a stop token (run.c stops at BOS, which delimits its
// samples). Each step runs the whole sequence again (no key/value cache): n steps cost about n
// forward passes over up to n tokens, fine for the short samples this is used to check.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "qkov/forward/forward_pass.hpp"

namespace qkov::forward {

template <class T>
std::vector<token_id> greedy_continuation(const decoder<T>& model, std::vector<token_id> tokens, std::size_t max_new,
                                          std::optional<token_id> stop = std::nullopt)
{
    for (std::size_t step = 0; step < max_new; ++step) {
        const tensor2<T> logits = model.logits(tokens);
        const std::size_t last = logits.shape()[0] - 1, V = logits.shape()[1];
        std::size_t best = 0;
        for (std::size_t j = 1; j < V; ++j)
            if (logits(last, j) > logits(last, best)) best = j;
        if (stop && best == *stop) break;
        tokens.push_back(static_cast<token_id>(best));
    }
    return tokens;
}

} // namespace qkov::forward
