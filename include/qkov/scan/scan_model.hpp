// A model scanned from its weights, layer by layer: per-head metrics (head_metrics.hpp), copying
// scores (copying_score.hpp) and composition scores (composition.hpp).
//
// Memory: one layer's heads and its 3Hd x D composition stack at a time, plus per scanned layer
// the D x Hd row of W_o its heads write with (one D x D when Hd = D), plus the D x D token
// circuit when the model has both embeddings (read in blocks of rows, token_side.hpp: never
// W_E or W_U whole) and at most token_sample rows of W_E for the constant-reading test
// (head_structure.hpp).
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qkov/model/attention_model.hpp"
#include "qkov/scan/absorbed_form.hpp"
#include "qkov/scan/composition.hpp"
#include "qkov/scan/copying_score.hpp"
#include "qkov/scan/head_metrics.hpp"
#include "qkov/scan/head_structure.hpp"
#include "qkov/scan/token_side.hpp"
#include "qkov/forward/norms.hpp"

namespace qkov::scan {

struct scan_options {
    std::size_t first_layer = 0;
    std::optional<std::size_t> last_layer;  ///< inclusive; the model's last layer when unset
    /// Called after each layer with the layer and its metrics (the CLI prints a progress line).
    std::function<void(std::size_t layer, const std::vector<head_metrics>&)> on_layer;
    label_thresholds thresholds;    ///< the labels' thresholds (docs/SCAN-LABELS.md)
    bool certify = true;            ///< certify the offset profile of positional RoPE heads
    std::size_t token_sample = 8192;  ///< embedding rows the constant-reading test uses (evenly strided)
    std::size_t absorbed_form_probe = 24;  ///< positions of the B4 check (absorbed_form.hpp)
};

struct scan_result {
    std::vector<head_metrics> heads;
    std::vector<composition_score> composition;
    bool copying_available = false;  ///< false when the model lacks W_E or W_U
    std::size_t tokens_sampled = 0, vocabulary = 0;  ///< rows of the embedding behind the constant-reading test
    label_thresholds thresholds;                      ///< as used (context resolved)
};

/// Rows of x (n x D) through a layer's norm: the forward pass's own (forward/norms.hpp), fed with
/// the head model's norm weights.
inline matrix through_norm(const model::norm_weights& norm, const matrix& x)
{
    if (norm.weight.size() != x.shape()[1])
        throw std::invalid_argument("qkov: the norm's weight has " + std::to_string(norm.weight.size()) + " entries for residual vectors of width " +
                                    std::to_string(x.shape()[1]));
    forward::norm_params<double> p;
    p.kind = norm.kind, p.eps = norm.eps;
    p.weight.assign(norm.weight.begin(), norm.weight.end());
    p.bias.assign(norm.bias.begin(), norm.bias.end());
    const numeric::tensor2<double> rows = x;
    return matrix(forward::normalized(rows, p));
}

/// Mean and spread of the rows of x projected on the unit direction u.
inline reading_constancy constancy(const matrix& x, const vector& u)
{
    const std::size_t n = x.shape()[0], D = x.shape()[1];
    std::vector<double> p(n, 0.0);
    double sum = 0;
    for (std::size_t t = 0; t < n; ++t) {
        for (std::size_t j = 0; j < D; ++j) p[t] += x(t, j) * u(j);
        sum += p[t];
    }
    // Two passes: E[p^2] - mean^2 would leave a rounding-level spread on an exactly constant reading.
    const double mean = sum / static_cast<double>(n);
    double square = 0;
    for (const double v : p) square += (v - mean) * (v - mean);
    return {mean, std::sqrt(square / static_cast<double>(n))};
}

/// Position and content structure of a head and its labels (docs/SCAN-LABELS.md). `normed` is the
/// sampled embedding through the layer's norm and `constant` its mean row (both empty without an
/// embedding).
inline void describe_head(const model::head_weights& h, const head_factors& f, const io::model_config& config, const matrix& normed, const vector& constant,
                          const matrix& normed_positions, bool positions_with_tokens, const scan_options& options, head_metrics& m)
{
    if (normed_positions.size() != 0) {
        m.structure.learned_positions = learned_position_preference(h, normed_positions);
        m.structure.learned_positions->with_tokens = positions_with_tokens;
    }
    const auto& t = options.thresholds;
    auto& s = m.structure;
    const bool one_direction = s.one_direction_q >= t.one_direction && s.one_direction_k >= t.one_direction;
    if (one_direction && normed.size() != 0) {
        s.reading_q = constancy(normed, top_read_direction(f.q));
        s.reading_k = constancy(normed, top_read_direction(f.k));
    }
    if (config.rope) {
        s.rope = measure_rope(h, *config.rope, t.context);
        // The direct scores (head_attention.hpp) rotate by the unscaled schedule: compare only there.
        if (!config.rope->scaling) m.absorbed_form_gap = absorbed_form_gap(h, *config.rope, probe_inputs(options.absorbed_form_probe, h.w_q.shape()[1]));
        const bool reads_constant =
            s.reading_q && s.reading_k && s.reading_q->variation() <= t.constant_reading && s.reading_k->variation() <= t.constant_reading;
        if (one_direction && reads_constant) s.profile = measure_offset_profile(h, *config.rope, constant, t.context, options.certify);
    }
    m.labels = label_head(s, m.centred_copying_score, t);
}

/// The longest context scanned when the caller leaves it to the model: a config may declare 2^40
/// positions, and a positional head's offset profile takes time and memory in proportion.
inline constexpr std::size_t largest_default_context = std::size_t{1} << 20;

inline scan_result scan_model(const model::attention_model& m, scan_options options = {})
{
    auto& context = options.thresholds.context;
    if (context == 0)
        context = m.config().max_positions != 0 ? std::min(m.config().max_positions, largest_default_context) : label_thresholds::default_context;
    const std::size_t layers = m.config().layers;
    const std::size_t last = options.last_layer.value_or(layers == 0 ? 0 : layers - 1);
    if (layers == 0) throw std::invalid_argument("qkov: the model has no layers to scan");
    if (options.first_layer > last || last >= layers)
        throw std::invalid_argument("qkov: layers " + std::to_string(options.first_layer) + "-" + std::to_string(last) + " are not within 0-" +
                                    std::to_string(layers - 1));
    scan_result result;
    auto [tokens, sample, vocabulary] = read_token_side(m, options.token_sample);
    if (sample.size() != 0) result.tokens_sampled = sample.shape()[0], result.vocabulary = vocabulary;
    // Learned positions: p_n (+ the mean token embedding when there is one), n < min(rows, context).
    matrix positions;
    if (auto p = m.position_embedding()) {
        const std::size_t n = std::min(p->shape()[0], options.thresholds.context);
        positions = xt::view(*p, xt::range(0, n), xt::all());
        if (sample.size() != 0) {
            // Evaluated once: broadcast lazily, the mean over the sampled rows would be recomputed
            // for every one of the N x D entries (N x D x 8192 operations).
            const vector mean_token = xt::mean(sample, {0});
            positions += xt::view(mean_token, xt::newaxis(), xt::all());
        }
    }
    result.copying_available = tokens.has_value();
    result.thresholds = options.thresholds;
    std::vector<layer_composition_factors> earlier;
    for (std::size_t l = options.first_layer; l <= last; ++l) {
        const auto lw = m.layer(l);
        std::vector<head_factors> factors;
        std::vector<head_metrics> metrics;
        matrix normed, normed_positions;
        vector constant;
        if (sample.size() != 0) {
            normed = through_norm(lw.norm, sample);
            constant = xt::mean(normed, {0});
        }
        if (positions.size() != 0) normed_positions = through_norm(lw.norm, positions);
        for (const auto& h : lw.heads) {
            factors.push_back(factor_head(h));
            metrics.push_back(measure_head(h, factors.back()));
            if (tokens) {  // nullopt also when the head's eigenvalues all vanish
                const auto scores = copying_scores(h, *tokens);
                metrics.back().copying_score = scores.plain;
                metrics.back().centred_copying_score = scores.centred;
            }
            describe_head(h, factors.back(), m.config(), normed, constant, normed_positions, sample.size() != 0, options, metrics.back());
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
