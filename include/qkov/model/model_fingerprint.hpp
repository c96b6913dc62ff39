// A model's weight fingerprint (weight_fingerprint.hpp: what it samples and why), read from its file.
#pragma once

#include <algorithm>
#include <cstddef>

#include "qkov/model/attention_model.hpp"
#include "qkov/model/weight_fingerprint.hpp"

namespace qkov::model {

/// The fingerprint of `m`, from head 0's W_v of its first and last layer.
inline weight_fingerprint fingerprint_of(const attention_model& m)
{
    const auto& c = m.config();
    weight_fingerprint f;
    f.layers = {0};
    if (c.layers > 1) f.layers.push_back(c.layers - 1);
    f.rows = std::min(fingerprint_rows, c.head_dim), f.columns = std::min(fingerprint_columns, c.hidden_size);
    for (const std::size_t l : f.layers) {
        const auto lw = m.layer(l);
        const auto& v = lw.heads.at(0).w_v;
        for (std::size_t r = 0; r < f.rows; ++r)
            for (std::size_t k = 0; k < f.columns; ++k) f.values.push_back(v(r, k));
    }
    return f;
}

} // namespace qkov::model
