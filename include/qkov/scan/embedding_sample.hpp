// The constant-reading test's sample of the vocabulary (structure_measurement.hpp, describe_head):
// every stride-th row of W_E through a layer's norm, read from the model file a block of rows at a
// time whenever a head asks, and let go block by block.
//
// Why not held: at Llama-3-8B's size the sample is 8,016 rows of 4,096 doubles (263 MB) and the
// same again through the norm, a quarter of the scan's heap, for a test few heads reach (only a
// head whose W_q and W_k each read mostly one direction). Reading it again costs one pass over
// those rows per such head.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "qkov/model/attention_model.hpp"
#include "qkov/scan/head_structure.hpp"
#include "qkov/scan/proxy_pass.hpp"

namespace qkov::scan {

/// The stride that keeps at most `limit` of V rows (1 when V <= limit): rows 0, s, 2s, ...
inline std::size_t sample_stride(std::size_t V, std::size_t limit) { return V <= limit ? 1 : (V + limit - 1) / limit; }

/// Which rows of W_E the sample holds: rows 0, stride, 2 stride, ... (`rows` of them).
struct embedding_sample {
    const model::attention_model* model = nullptr;  ///< null: no embedding, an empty sample
    std::size_t stride = 1, rows = 0;

    /// Calls f(first, block) for consecutive blocks of the sample through `norm` (block: n x D,
    /// sample rows first .. first + n). Each row is normed alone, so a row's values do not depend
    /// on the block it falls in.
    template <class F>
    void for_each_normed_block(const model::norm_weights& norm, F&& f, std::size_t block_rows = 512) const
    {
        if (model == nullptr) return;
        const std::size_t D = model->config().hidden_size;
        block_rows = std::max<std::size_t>(block_rows, 1);
        for (std::size_t first = 0; first < rows; first += block_rows) {
            const std::size_t n = std::min(block_rows, rows - first);
            matrix block = xt::empty<double>({n, D});
            for (std::size_t i = 0; i < n; ++i) {
                const matrix row = *model->embedding_rows((first + i) * stride, 1);
                std::copy_n(row.data(), D, block.data() + i * D);
            }
            f(first, static_cast<const matrix&>(through_norm(norm, block)));
        }
    }
};

/// The sample of at most `limit` rows of m's embedding (empty without one).
inline embedding_sample sample_embedding(const model::attention_model& m, std::size_t limit)
{
    if (!m.has_embedding()) return {};
    const std::size_t V = m.config().vocab_size, stride = sample_stride(V, limit);
    return {&m, stride, V == 0 ? 0 : (V + stride - 1) / stride};
}

/// Mean and spread of the projections p_t (one per token).
inline reading_constancy constancy_of(const std::vector<double>& p)
{
    double sum = 0;
    for (const double v : p) sum += v;
    // Two passes: E[p^2] - mean^2 would leave a rounding-level spread on an exactly constant reading.
    const double mean = sum / static_cast<double>(p.size());
    double square = 0;
    for (const double v : p) square += (v - mean) * (v - mean);
    return {mean, std::sqrt(square / static_cast<double>(p.size()))};
}

/// What a head's constant-reading test reads of the sample through a layer's norm, in one pass:
/// each row's projection on each direction asked, and the mean row (the constant the head reads
/// when its readings are constant over the vocabulary).
struct sample_reading {
    std::vector<std::vector<double>> projections;  ///< per direction, one per sampled row
    vector mean;                                   ///< D: the mean of the sampled rows through the norm
};

inline sample_reading read_through_norm(const embedding_sample& s, const model::norm_weights& norm, const std::vector<vector>& directions)
{
    sample_reading r{std::vector<std::vector<double>>(directions.size(), std::vector<double>(s.rows, 0.0)),
                     xt::zeros<double>({s.model == nullptr ? 0 : s.model->config().hidden_size})};
    s.for_each_normed_block(norm, [&](std::size_t first, const matrix& x) {
        const std::size_t n = x.shape()[0], D = x.shape()[1];
        for (std::size_t t = 0; t < n; ++t) {
            for (std::size_t k = 0; k < directions.size(); ++k)
                for (std::size_t j = 0; j < D; ++j) r.projections[k][first + t] += x(t, j) * directions[k](j);
            for (std::size_t j = 0; j < D; ++j) r.mean(j) += x(t, j);
        }
    });
    r.mean /= static_cast<double>(std::max<std::size_t>(s.rows, 1));
    return r;
}

} // namespace qkov::scan
