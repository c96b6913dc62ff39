// The content of sampled tokens as one head sees it: each token's effective embedding at the head's
// layer (proxy_pass.hpp) minus the layer's mean, projected through W_q and W_k. The predicted
// attention draws whole tokens from it (sampled_attention.hpp), and the certificates' widths are
// its spread (mean_field.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "qkov/model/head_weights.hpp"
#include "qkov/scan/proxy_pass.hpp"
#include "qkov/scan/thin_qr.hpp"

namespace qkov::scan {

/// The content of sampled tokens as one head sees it: rows W_q (x_t - mu_l) and W_k (x_t - mu_l),
/// S x d each, for S tokens' effective embeddings x_t at the head's layer; and, where the rows say
/// which row preceded each in its run, the key content of that predecessor (previous_keys, S x d;
/// after[i]: row i had one; empty: the predecessors are not known).
struct token_contents {
    matrix queries, keys;
    matrix previous_keys;
    std::vector<bool> after;
};

/// At most `limit` of the rows of `effective` (every stride-th), centred and projected. Centred on
/// the mean of all rows, or, given each row's position (a model with learned positions, whose
/// residual carries the position), on the mean of the rows at the same position: the mean field
/// already holds each position's part, and content is what a token adds to it. Given each row's
/// predecessor (effective_inputs::predecessor), the key content of every sampled row's
/// predecessor too.
inline token_contents project_token_contents(const model::head_weights& h, const matrix& effective, std::size_t limit,
                                             const std::vector<std::size_t>& position = {}, const std::vector<std::size_t>& predecessor = {})
{
    const std::size_t n = effective.shape()[0], D = effective.shape()[1];
    if (n == 0 || limit == 0) throw std::invalid_argument("qkov: no tokens to sample content from");
    if (!position.empty() && position.size() != n) throw std::invalid_argument("qkov: a position for every effective embedding is needed");
    if (!predecessor.empty() && predecessor.size() != n) throw std::invalid_argument("qkov: a predecessor for every effective embedding is needed");
    for (const std::size_t p : predecessor)
        if (p != no_predecessor && p >= n) throw std::invalid_argument("qkov: a predecessor row is outside the effective embeddings");
    const std::size_t stride = n <= limit ? 1 : (n + limit - 1) / limit, rows = (n + stride - 1) / stride;
    const std::size_t groups = position.empty() ? 1 : *std::max_element(position.begin(), position.end()) + 1;
    const auto group_of = [&](std::size_t i) { return position.empty() ? std::size_t{0} : position[i]; };
    matrix mean = xt::zeros<double>({groups, D});
    std::vector<double> count(groups, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        count[group_of(i)] += 1;
        for (std::size_t j = 0; j < D; ++j) mean(group_of(i), j) += effective(i, j);
    }
    for (std::size_t g = 0; g < groups; ++g)
        for (std::size_t j = 0; j < D; ++j) mean(g, j) /= std::max(count[g], 1.0);
    matrix centred({rows, D});
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < D; ++j) centred(r, j) = effective(r * stride, j) - mean(group_of(r * stride), j);
    token_contents out{multiply(centred, h.w_q, false, true), multiply(centred, h.w_k, false, true), {}, {}};
    if (predecessor.empty()) return out;
    matrix before = xt::zeros<double>({rows, D});
    out.after.assign(rows, false);
    for (std::size_t r = 0; r < rows; ++r)
        if (const std::size_t p = predecessor[r * stride]; p != no_predecessor) {
            out.after[r] = true;
            for (std::size_t j = 0; j < D; ++j) before(r, j) = effective(p, j) - mean(group_of(p), j);
        }
    out.previous_keys = multiply(before, h.w_k, false, true);
    return out;
}

} // namespace qkov::scan
