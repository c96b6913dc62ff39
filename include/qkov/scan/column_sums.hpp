// The column sums of a matrix read in blocks of rows (the mean embedding and unembedding rows of
// a vocabulary that is never held whole): each block's sums along its rows in order, then added
// to the running total, the order of xt::sum(block, {0}) added to it, so every bit is what it was
// (the rows added straight into the total would round otherwise). A plain loop along the rows:
// xtensor's reduction over axis 0 walked the columns with a stride, about 20 s of one core for
// Llama-3-8B's 128,256 x 4,096 embedding.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/model/head_weights.hpp"

namespace qkov::scan {

/// total (D) += the sum of the rows of `rows` (n x D).
inline void add_column_sums(model::vector& total, const model::matrix& rows)
{
    const std::size_t n = rows.shape()[0], D = rows.shape()[1];
    if (total.size() != D) throw std::invalid_argument("qkov: column sums of rows of width " + std::to_string(D) + " into " + std::to_string(total.size()));
    std::vector<double> sums(D, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < D; ++j) sums[j] += rows.data()[i * D + j];
    for (std::size_t j = 0; j < D; ++j) total(j) += sums[j];
}

} // namespace qkov::scan
