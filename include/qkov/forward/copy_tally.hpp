// Whether a head copies the token it reads, measured after the passes with the vocabulary streamed.
//
// At a query i whose most-attended key j is not position 0, the head's output z_i = (A V_h)_i read
// through the final norm's scale and the unembedding gives logits U_h z_i (U_h is V x d:
// forward_pass.hpp's head_unembedding); the head copies at i when t_j has the highest of them, and
// suppresses t_j when t_j is among the copy_bottom_ranks lowest. Ties count against.
//
// The maps U_h of every head together are L H V d numbers (GPT-2 small in float32: 1.8 GB;
// Llama-3-8B's shape: 67 GB), so they are never held. While the samples run, each head keeps only
// its outputs z_i at the queries that read a token, and those tokens (add()); afterwards each
// layer's maps are made a block of vocabulary rows at a time, and every kept query's rank is
// decided from three things carried across the blocks: its token's own logit, the highest of the
// other logits, and the copy_bottom_ranks lowest of the others (count_layer()). t_j is first iff the
// highest other is below its logit, and among the lowest iff the copy_bottom_ranks-th lowest other
// is above it: the counts of the whole row of logits, from one pass over the vocabulary per layer.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/forward/attention_block.hpp"
#include "qkov/forward/head_scores.hpp"
#include "qkov/forward/token_id.hpp"
#include "qkov/numeric/blas_products.hpp"
#include "qkov/numeric/parallel_blocks.hpp"

namespace qkov::forward {

/// Every head's kept queries of a detection, and their ranks (the comment above).
template <class T>
class copy_tally {
public:
    copy_tally(std::size_t layers, std::size_t heads, std::size_t head_dim) : heads_(heads), d_(head_dim), kept_(layers * heads) {}

    /// The bytes kept for `tokens` query positions in every head (an upper bound: queries resting on
    /// position 0 are not kept), to check before the passes.
    [[nodiscard]] static std::size_t bytes_for(std::size_t layers, std::size_t heads, std::size_t head_dim, std::size_t tokens)
    {
        return layers * heads * tokens * (head_dim * sizeof(T) + sizeof(token_id));
    }

    /// One head's pattern (n x n, row = query) and values (n x d) on `tokens`: keeps z_i and t_j
    /// for every query whose most-attended key j is not position 0 (a head resting on BOS reads nothing).
    void add(std::size_t l, std::size_t h, const tensor2<T>& pattern, const tensor2<T>& values, std::span<const token_id> tokens)
    {
        const std::size_t n = tokens.size();
        if (pattern.shape()[0] != n || pattern.shape()[1] != n || values.shape()[0] != n || values.shape()[1] != d_)
            throw std::invalid_argument("qkov: copying needs an n x n pattern and n x " + std::to_string(d_) + " values for " + std::to_string(n) + " tokens");
        const tensor2<T> outputs = numeric::product(pattern, values);
        auto& k = kept_.at(l * heads_ + h);
        for (std::size_t i = 0; i < n; ++i) {
            std::size_t top = 0;
            for (std::size_t j = 1; j <= i; ++j)
                if (pattern(i, j) > pattern(i, top)) top = j;
            if (top == 0) continue;
            k.targets.push_back(tokens[top]);
            k.outputs.insert(k.outputs.end(), outputs.data() + i * d_, outputs.data() + (i + 1) * d_);
        }
    }

    /// Layer l's counts per head. for_each_block(f) must call f(first, maps) for consecutive blocks of
    /// vocabulary rows from 0 to `vocabulary`, maps being rows x H d with head h's map in columns
    /// h d .. h d + d (forward_pass.hpp's for_each_head_unembedding_block). The heads of a block are
    /// ranked on the worker threads.
    template <class ForEachBlock>
    [[nodiscard]] std::vector<copy_counts> count_layer(std::size_t l, std::size_t vocabulary, ForEachBlock&& for_each_block) const
    {
        std::vector<std::vector<query_rank>> ranks(heads_);
        std::vector<tensor2<T>> outputs(heads_);  // each head's kept z_i, queries x d
        for (std::size_t h = 0; h < heads_; ++h) {
            const auto& k = kept_.at(l * heads_ + h);
            for (const token_id t : k.targets)
                if (t >= vocabulary) throw std::out_of_range("qkov: token " + std::to_string(t) + " is outside the head's vocabulary of " + std::to_string(vocabulary));
            ranks[h].resize(k.targets.size());
            outputs[h] = tensor2<T>::from_shape({k.targets.size(), d_});
            std::copy(k.outputs.begin(), k.outputs.end(), outputs[h].data());
        }
        std::size_t next = 0;
        for_each_block([&](std::size_t first, const tensor2<T>& maps) {
            if (first != next || maps.shape()[1] != heads_ * d_ || first + maps.shape()[0] > vocabulary)
                throw std::logic_error("qkov: the heads' maps into logits came in blocks out of order or of the wrong width");
            next = first + maps.shape()[0];
            numeric::for_each_block(heads_, [&](std::size_t h) { rank_block(outputs[h], kept_[l * heads_ + h].targets, first, maps, h, ranks[h]); });
        });
        if (next != vocabulary) throw std::logic_error("qkov: the heads' maps into logits ended at row " + std::to_string(next) + " of " + std::to_string(vocabulary));
        std::vector<copy_counts> counts(heads_);
        for (std::size_t h = 0; h < heads_; ++h)
            for (const auto& q : ranks[h]) {
                // With fewer others than the bounds need, the unfilled ones stay infinite, as they should.
                const bool others_finite = (vocabulary < 2 || std::isfinite(q.highest_other)) &&
                                           (vocabulary <= copy_bottom_ranks || std::isfinite(q.lowest_others.back()));
                if (!std::isfinite(q.own) || !others_finite)
                    throw std::domain_error("qkov: layer " + std::to_string(l) + " head " + std::to_string(h) +
                                            " gives a logit that is not finite: its copying cannot be ranked");
                ++counts[h].queries;
                counts[h].top1 += q.highest_other < q.own ? 1 : 0;
                counts[h].bottom += q.lowest_others.back() > q.own ? 1 : 0;
            }
        return counts;
    }

private:
    struct kept_queries {
        std::vector<T> outputs;          ///< one row of d per kept query: z_i
        std::vector<token_id> targets;   ///< t_j, the token it reads
    };
    /// One query's state across the vocabulary blocks. lowest_others is ascending, +inf until filled.
    struct query_rank {
        T own = std::numeric_limits<T>::quiet_NaN();
        T highest_other = -std::numeric_limits<T>::infinity();
        std::array<T, copy_bottom_ranks> lowest_others = filled(std::numeric_limits<T>::infinity());
        static std::array<T, copy_bottom_ranks> filled(T x)
        {
            std::array<T, copy_bottom_ranks> a;
            a.fill(x);
            return a;
        }
    };

    /// Carries the logits of vocabulary rows first .. first + rows of head h into each kept query's rank.
    void rank_block(const tensor2<T>& outputs, const std::vector<token_id>& targets, std::size_t first, const tensor2<T>& maps, std::size_t h,
                    std::vector<query_rank>& ranks) const
    {
        const std::size_t queries = targets.size(), rows = maps.shape()[0];
        if (queries == 0) return;
        tensor2<T> head_map = tensor2<T>::from_shape({rows, d_});  // this head's columns, contiguous for BLAS
        for (std::size_t v = 0; v < rows; ++v) std::copy_n(maps.data() + v * maps.shape()[1] + h * d_, d_, head_map.data() + v * d_);
        const tensor2<T> logits = numeric::product(outputs, head_map, numeric::transposed::yes);  // queries x rows
        for (std::size_t q = 0; q < queries; ++q) {
            const T* row = logits.data() + q * rows;
            const std::size_t t = targets[q];
            const bool holds_own = t >= first && t < first + rows;
            auto& r = ranks[q];
            if (holds_own) r.own = row[t - first];
            for (std::size_t v = 0; v < rows; ++v) {
                if (holds_own && v == t - first) continue;
                const T x = row[v];
                if (x != x) r.highest_other = x;  // NaN: reported as not finite at the end
                r.highest_other = std::max(r.highest_other, x);
                if (x < r.lowest_others.back()) {  // rarely, once the lowest are found: keep the array sorted
                    auto at = std::upper_bound(r.lowest_others.begin(), r.lowest_others.end(), x);
                    std::copy_backward(at, r.lowest_others.end() - 1, r.lowest_others.end());
                    *at = x;
                }
            }
        }
    }

    std::size_t heads_, d_;
    std::vector<kept_queries> kept_;  ///< [l * heads + h]
};

} // namespace qkov::forward
