// What the earlier layers write into a position about the token k positions before it: every head
// of every layer scanned so far, weighted by its predicted attention at offset k (its mean field,
// mean_field.hpp), through its OV circuit, for a sample of tokens. This is the first-order content a
// later head's query or key can read of the token k back: a previous-token head writes its
// predecessor's (k = 1), a head spread over offsets writes a little of each. The circuit search
// (circuit_search.hpp) composes a later head's QK circuit with it.
//
//   writes_k(t) = sum_{layers l, heads h} p_{l,h}(k) W_o,h (W_v,h x_t^l + b_v,h) - its mean over the tokens
//
// x_t^l is token t's effective embedding at layer l (proxy_pass.hpp); p_{l,h}(k) the head's
// predicted attention at offset k, averaged over queries W .. N. The mean over the tokens is the
// same for every position and already in the residual's mean, so only what depends on the token is
// kept. Residual space (D), one S x D matrix per offset k = 1 .. W (and one head's while it is added):
// memory (W + 1) S D doubles, which the caller bounds by choosing S (layer_circuits.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "qkov/model/head_weights.hpp"
#include "qkov/scan/mean_field_evidence.hpp"
#include "qkov/scan/thin_qr.hpp"

namespace qkov::scan {

/// One earlier head's predicted attention by offset, for naming the heads a circuit reads through.
struct earlier_head {
    std::size_t layer = 0, head = 0;
    std::vector<double> attention;  ///< p(k), k = 0 .. W
};

struct offset_writes {
    std::size_t window = 0;             ///< offsets 1 .. W
    std::vector<matrix> by_offset;      ///< by_offset[k - 1]: S x D, centred over the tokens
    std::vector<earlier_head> heads;    ///< every head added, in order

    offset_writes() = default;
    offset_writes(std::size_t W, std::size_t tokens, std::size_t D) : window(W)
    {
        for (std::size_t k = 1; k <= W; ++k) by_offset.push_back(xt::zeros<double>({tokens, D}));
    }

    [[nodiscard]] bool empty() const { return heads.empty(); }

    /// Adds one layer's heads: `rows` (S x D) are the sampled tokens' effective embeddings at that
    /// layer, `attention[h]` head h's predicted attention by offset (nullptr: the head has none and
    /// adds nothing).
    void add_layer(const std::vector<model::head_weights>& layer_heads, const std::vector<const mean_field_evidence*>& attention, const matrix& rows)
    {
        std::vector<std::size_t> writing;
        for (std::size_t h = 0; h < layer_heads.size(); ++h)
            if (attention[h] != nullptr) writing.push_back(h), heads.push_back({layer_heads[h].layer, layer_heads[h].head, attention[h]->by_offset});
        if (writing.empty()) return;
        const std::size_t S = rows.shape()[0], D = rows.shape()[1], d = layer_heads[0].w_v.shape()[0], n = writing.size() * d;
        // Every writing head's values side by side (S x n), each head's product reading its own W_v
        // (a stacked copy of them all was 134 MB at Llama-3-8B's shape), centred over the tokens:
        // the mean of W_o v is W_o of the mean, and b_v, the same for every token, goes with it.
        matrix values = xt::empty<double>({S, n});
        for (std::size_t i = 0; i < writing.size(); ++i)
            multiply_into(S, d, D, rows.data(), D, false, layer_heads[writing[i]].w_v.data(), D, true, values.data() + i * d, n);
        for (std::size_t c = 0; c < n; ++c) {
            double mean = 0;
            for (std::size_t t = 0; t < S; ++t) mean += values(t, c);
            mean /= static_cast<double>(std::max<std::size_t>(S, 1));
            for (std::size_t t = 0; t < S; ++t) values(t, c) -= mean;
        }
        // writes_k += sum_h p_h(k) (values_h W_o,h^T): each head's output over the tokens once (S x D,
        // one product of S x d x D), then added to every offset it attends with its weight. One
        // product per offset over all heads (S x n x D, W of them) did W times the multiplications.
        matrix written = xt::empty<double>({S, D});
        for (std::size_t i = 0; i < writing.size(); ++i) {
            const auto& p = attention[writing[i]]->by_offset;
            bool any = false;
            for (std::size_t k = 1; k <= window; ++k) any = any || (k < p.size() && p[k] != 0);
            if (!any) continue;
            multiply_into(S, D, d, values.data() + i * d, n, false, layer_heads[writing[i]].w_o.data(), d, true, written.data(), D);
            for (std::size_t k = 1; k <= window; ++k) {
                const double weight = k < p.size() ? p[k] : 0.0;
                if (weight == 0) continue;
                double* out = by_offset[k - 1].data();
                const double* in = written.data();
                for (std::size_t j = 0; j < S * D; ++j) out[j] += weight * in[j];
            }
        }
    }
};

} // namespace qkov::scan
