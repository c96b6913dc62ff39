// What the scan needs of a model's vocabulary, read in one pass over blocks of rows: the token
// circuit G = W_E^T W_U with the mean rows of W_E and W_U (copying_score.hpp). (The
// constant-reading test's strided sample of W_E is read where it is used: embedding_sample.hpp.)
//
// Memory: one block of W_E (and of W_U when untied) at a time and G; never the V x D matrices
// themselves (GPT-2's 50,257 x 768 are 309 MB as doubles, 65 times G).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>

#include "qkov/model/attention_model.hpp"
#include "qkov/scan/column_sums.hpp"
#include "qkov/scan/copying_score.hpp"

namespace qkov::scan {

struct token_side {
    std::optional<token_circuits> tokens;  ///< nullopt without an embedding or an unembedding
    std::size_t vocabulary = 0;             ///< V when the embedding is present, else 0
};

/// Reads the vocabulary block by block (`block_rows` rows of each matrix at a time).
inline token_side read_token_side(const model::attention_model& m, std::size_t block_rows = 4096)
{
    token_side out;
    using presence = model::attention_model::presence;
    if (!m.has_embedding()) return out;
    const std::size_t V = m.config().vocab_size, D = m.config().hidden_size;
    const bool tied = m.unembedding_presence() == presence::tied;
    const bool has_unembedding = tied || m.unembedding_presence() == presence::present;
    out.vocabulary = V;
    matrix g = xt::zeros<double>({D, D});
    vector e_sum = xt::zeros<double>({D}), u_sum = xt::zeros<double>({D});
    block_rows = std::max<std::size_t>(block_rows, 1);
    for (std::size_t first = 0; first < V; first += block_rows) {
        const std::size_t n = std::min(block_rows, V - first);
        const matrix e = *m.embedding_rows(first, n);
        add_column_sums(e_sum, e);
        if (tied) {
            add_token_rows(g, e, nullptr);
        } else if (has_unembedding) {
            const matrix u = *m.unembedding_rows(first, n);
            add_column_sums(u_sum, u);
            add_token_rows(g, e, &u);
        }
    }
    if (!has_unembedding || V == 0) return out;
    if (tied) {
        mirror_upper(g);
        u_sum = e_sum;
    }
    const double v = static_cast<double>(V);
    vector mean_embedding = e_sum / v, mean_unembedding = u_sum / v;
    out.tokens = token_circuits{std::move(g), std::move(mean_embedding), std::move(mean_unembedding), V};
    return out;
}

} // namespace qkov::scan
