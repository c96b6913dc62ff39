// A model scanned from its weights, layer by layer: per-head metrics (head_metrics.hpp), copying
// scores (copying_score.hpp) and composition scores (composition.hpp).
//
// Memory: one layer's heads and its 3Hd x D composition stack at a time, plus per scanned layer
// the D x Hd row of W_o its heads write with (one D x D when Hd = D), plus the D x D token
// circuit when the model has both embeddings (W_E and W_U themselves only while it is formed).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qkov/model/attention_model.hpp"
#include "qkov/scan/composition.hpp"
#include "qkov/scan/copying_score.hpp"
#include "qkov/scan/head_metrics.hpp"

namespace qkov::scan {

struct scan_options {
    std::size_t first_layer = 0;
    std::optional<std::size_t> last_layer;  ///< inclusive; the model's last layer when unset
    /// Called after each layer with the layer and its metrics (the CLI prints a progress line).
    std::function<void(std::size_t layer, const std::vector<head_metrics>&)> on_layer;
};

struct scan_result {
    std::vector<head_metrics> heads;
    std::vector<composition_score> composition;
    bool copying_available = false;  ///< false when the model lacks W_E or W_U
};

inline scan_result scan_model(const model::attention_model& m, const scan_options& options = {})
{
    const std::size_t layers = m.config().layers;
    const std::size_t last = options.last_layer.value_or(layers == 0 ? 0 : layers - 1);
    if (layers == 0) throw std::invalid_argument("qkov: the model has no layers to scan");
    if (options.first_layer > last || last >= layers)
        throw std::invalid_argument("qkov: layers " + std::to_string(options.first_layer) + "-" + std::to_string(last) + " are not within 0-" +
                                    std::to_string(layers - 1));
    scan_result result;
    const auto tokens = token_circuit(m);
    result.copying_available = tokens.has_value();
    std::vector<layer_composition_factors> earlier;
    for (std::size_t l = options.first_layer; l <= last; ++l) {
        const auto lw = m.layer(l);
        std::vector<head_factors> factors;
        std::vector<head_metrics> metrics;
        for (const auto& h : lw.heads) {
            factors.push_back(factor_head(h));
            metrics.push_back(measure_head(h, factors.back()));
            if (tokens) metrics.back().copying_score = copying_score(h, *tokens);  // nullopt also when the head's eigenvalues all vanish
        }
        auto mine = composition_factors(lw.heads, factors, metrics);
        for (const auto& e : earlier) compose(e, mine, result.composition);
        mine.reads = matrix();  // later layers need only what this one writes
        earlier.push_back(std::move(mine));
        if (options.on_layer) options.on_layer(l, metrics);
        result.heads.insert(result.heads.end(), metrics.begin(), metrics.end());
    }
    return result;
}

} // namespace qkov::scan
