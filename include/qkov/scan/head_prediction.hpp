// Everything the scan predicts of one head's attention from its weights and its layer's input: the
// attention by offset and on BOS (with sampled token content when the proxy pass read tokens,
// sampled_attention.hpp; the mean field's softmax otherwise, mean_field.hpp), the positional swing,
// and the interval certificates a label can rest on (docs/SCAN-LABELS.md).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "qkov/scan/mean_field.hpp"
#include "qkov/scan/mean_field_evidence.hpp"
#include "qkov/scan/sampled_attention.hpp"

namespace qkov::scan {

struct mean_field_request {
    bool certify = true;
    double offset_threshold = labels::majority, sink_threshold = labels::sink_threshold;
    double content_deviations = 2;  ///< each score may move by this many standard deviations of its content (score_spread)
};

/// The widths `deviations` x spread allows, as certificate_widths records them.
inline certificate_widths widths_of(const score_spread& spread, double deviations)
{
    certificate_widths w;
    w.stationary = spread.stationary, w.positions = spread.positions;
    const std::size_t N = spread.positions;
    const auto add = [&](double mean, double sd) { w.lower.push_back(mean - deviations * sd), w.upper.push_back(mean + deviations * sd); };
    if (spread.stationary) {
        for (std::size_t delta = 0; delta <= N; ++delta) add(delta == 0 ? spread.own_mean : 0.0, spread.offset_sd[delta]);
        for (std::size_t m = 0; m <= N; ++m) add(0.0, spread.bos_sd[m]);
    } else {
        for (std::size_t i = 0; i < spread.full_sd.size(); ++i) add(spread.full_mean[i], spread.full_sd[i]);
    }
    return w;
}

/// The prediction for head h (double), and certificates where a label could rest on them: a
/// lower bound of p(delta) and of the previous-token score where the prediction reaches
/// offset_threshold, of p(BOS) where it
/// reaches sink_threshold, and the swing bounds.
inline mean_field_evidence mean_field_of(const model::head_weights& h, const proxy_layer& input, bool learned_positions,
                                         const std::optional<io::rope_config>& rope, const model::norm_weights& norm, const mean_field_settings& s,
                                         const mean_field_request& r, const token_contents* tokens = nullptr)
{
    mean_field_evidence e;
    e.window = s.window;
    e.positions = learned_positions ? "learned" : rope ? "rope" : "nope";
    const auto kernel = mean_field_kernel<double>(h, input, learned_positions, rope);
    const auto p = tokens ? sampled_attention(h, input, learned_positions, rope, *tokens, s.window) : predict_attention(kernel, s.window);
    std::optional<score_spread> spread;  // the certificates' widths, from the same sampled content
    if (tokens) {
        spread = content_score_spread(h, input, learned_positions, rope, *tokens);
        e.content_spread = spread->typical_sd(s.window);
    }
    e.by_offset = p.by_offset, e.bos = p.bos, e.previous = p.previous, e.first_query = p.first_query, e.last_query = p.last_query;
    e.swing = positional_swing(kernel, s.window);
    const std::size_t d = h.w_q.shape()[0];
    if (!r.certify) return e;
    std::vector<double> top = e.by_offset;
    std::sort(top.rbegin(), top.rend());
    const bool wants_offset = (top.size() >= 2 && top[0] + top[1] >= r.offset_threshold) || e.previous >= r.offset_threshold;
    const bool wants_bos = e.bos >= r.sink_threshold;
    const bool scaled = rope && !forward::angles_enclosed(*rope);  // no enclosure of llama3's blended angles
    if ((wants_offset || wants_bos) && !scaled) {
        const auto kernel_i = mean_field_kernel<interval>(h, input, learned_positions, rope, spread ? &*spread : nullptr, spread ? r.content_deviations : 0.0);
        std::vector<std::size_t> order(e.by_offset.size());
        for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return e.by_offset[a] > e.by_offset[b]; });
        e.by_offset_lower.assign(e.by_offset.size(), 0.0);
        for (std::size_t k = 0; k < e.by_offset.size(); ++k)
            if (e.by_offset[k] >= r.offset_threshold) e.by_offset_lower[k] = mass_on_offsets(kernel_i, s.window, {k}, false).lo();
        if (order.size() >= 2) e.top_two_lower = mass_on_offsets(kernel_i, s.window, {order[0], order[1]}, false).lo();
        if (e.previous >= r.offset_threshold) e.previous_lower = previous_token_mass(kernel_i).lo();
        if (wants_bos) e.bos_lower = mass_on_offsets(kernel_i, s.window, {}, true).lo();
        e.content_deviations = spread ? r.content_deviations : 0.0;
        if (spread && r.content_deviations > 0) e.widths = widths_of(*spread, r.content_deviations);
    }
    if (learned_positions) {
        e.swing_bound = positional_swing(mean_field_kernel<interval>(h, input, true, rope), s.window).hi();
    } else if (!rope) {
        e.swing_bound = 0.0, e.swing_bound_every_input = 0.0;  // no rotation: the offset enters no score
    } else if (!scaled) {
        const rope_layout layout{d, rope->rotary_dim, rope->pairing};
        const auto theta = forward::rope_theta<interval>(*rope);
        const auto q = project<interval>(h.w_q, h.b_q, input.mean), k = project<interval>(h.w_k, h.b_k, input.mean);
        e.swing_bound = rope_swing_bound(pair_norms(q, layout), pair_norms(k, layout), theta, s.window, d).hi();
        const interval radius = norm_output_bound(norm);
        e.swing_bound_every_input =
            rope_swing_bound(pair_norm_bounds(h.w_q, h.b_q, layout, radius), pair_norm_bounds(h.w_k, h.b_k, layout, radius), theta, s.window, d).hi();
    }
    return e;
}

} // namespace qkov::scan
