// The circuit search over a model, layer by layer (circuit_search.hpp has the definitions): what
// the scanned layers write at each offset grows as the scan goes down (offset_writes.hpp), and each
// layer's heads are searched against what the layers above them wrote, then add their own writes.
//
// The tokens: a sample of the per-token read-out's (token_copying.hpp), every stride-th, at most
// circuit_tokens of them and at most what 256 MiB of writes (W x S x D doubles, and one S x D more
// while a layer is added: offset_writes.hpp) can hold; all of
// them for a small vocabulary. The label: among a head's candidates whose diagonal wins for a
// majority of its tokens (top-1 share >= 1/2 averaged over the tested offsets), the one with the
// largest boost, when the head is not positional (head_labels.hpp gives it). What the head then writes: its own per-token copying when
// it attends s = 0 or 1 after the earlier occurrence; for s >= 2, its read-out of what earlier heads
// wrote s - 1 positions before where it attends (V-composition), so the token after the earlier
// occurrence, the next token of the repeat, is what it raises.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "qkov/labels/vocabulary.hpp"
#include "qkov/scan/circuit_search.hpp"
#include "qkov/scan/composition_score.hpp"
#include "qkov/scan/head_metrics.hpp"
#include "qkov/scan/offset_writes.hpp"
#include "qkov/scan/token_copying.hpp"

namespace qkov::scan {

/// The bytes the offsets' writes may take: W x S x D doubles (one S x D more while a layer is added).
inline constexpr std::size_t circuit_writes_memory = std::size_t{256} << 20;

class layer_circuits {
public:
    /// Over the read-out's tokens (`readout_tokens` of them), at most `most` sampled, for a model of
    /// width D; `settings.window` offsets.
    layer_circuits(std::size_t readout_tokens, std::size_t most, std::size_t D, const circuit_search_settings& settings) : settings_(settings)
    {
        // Below 1 the partners would be decided inside the bounds: unsound, so refused.
        if (!(settings.partner_bound_scale >= 1) || !std::isfinite(settings.partner_bound_scale))
            throw std::invalid_argument("qkov: partner_bound_scale " + std::to_string(settings.partner_bound_scale) + " is not a finite number >= 1");
        const std::size_t by_memory = std::max<std::size_t>(1, circuit_writes_memory / (std::max<std::size_t>(settings.window, 1) * D * sizeof(double)));
        const std::size_t cap = std::max<std::size_t>(1, std::min(most, by_memory));
        const std::size_t stride = (readout_tokens + cap - 1) / cap;
        for (std::size_t i = 0; i < readout_tokens; i += std::max<std::size_t>(stride, 1)) rows_.push_back(i);
        writes_ = offset_writes(settings.window, rows_.size(), D);
    }

    /// The sampled tokens' rows of a layer's effective embeddings (T x D, the read-out's order).
    [[nodiscard]] matrix sampled(const matrix& all) const
    {
        const std::size_t D = all.shape()[1];
        matrix out = xt::empty<double>({rows_.size(), D});
        for (std::size_t r = 0; r < rows_.size(); ++r)
            for (std::size_t j = 0; j < D; ++j) out(r, j) = all(rows_[r], j);
        return out;
    }
    /// The read-out restricted to the sampled tokens (for a head's read-out of a side's writes).
    [[nodiscard]] token_readout sampled(const token_readout& r) const
    {
        token_readout out;
        out.centres = r.centres, out.scale = r.scale, out.vocabulary = r.vocabulary;
        for (const std::size_t i : rows_) out.tokens.push_back(r.tokens[i]);
        out.token_rows = sampled(r.token_rows);
        return out;
    }
    [[nodiscard]] std::size_t tokens() const { return rows_.size(); }

    /// What the layers added so far write (shard_inputs.hpp saves it for a shard starting below them).
    [[nodiscard]] const offset_writes& writes() const { return writes_; }
    /// Continues from writes saved by a search over the same tokens and window (the same shapes).
    void restore(offset_writes saved)
    {
        if (saved.window != writes_.window || saved.by_offset.size() != writes_.by_offset.size())
            throw std::invalid_argument("qkov: saved circuit writes over " + std::to_string(saved.window) + " offsets, the search has " +
                                        std::to_string(writes_.window));
        for (std::size_t k = 0; k < saved.by_offset.size(); ++k)
            if (saved.by_offset[k].shape() != writes_.by_offset[k].shape())
                throw std::invalid_argument("qkov: saved circuit writes at offset " + std::to_string(k + 1) + " are not " + std::to_string(rows_.size()) +
                                            " sampled tokens x the model's width");
        writes_ = std::move(saved);
    }

    /// Adds a layer's writes (after its heads were searched): `all_rows` the layer's effective
    /// embeddings (T x D), `metrics` its heads' (their predicted attention by offset).
    void add_layer(const std::vector<model::head_weights>& heads, const std::vector<const mean_field_evidence*>& attention, const matrix& all_rows)
    {
        writes_.add_layer(heads, attention, sampled(all_rows));
    }

    /// A pair's scores as the float64 scan makes them (source layer, source head, target head in
    /// the searched layer): what a float32 scan's partners are decided by where the bounds leave
    /// them open.
    using float64_scores = std::function<composition_score(std::size_t, std::size_t, std::size_t)>;

    /// Searches every head of a layer: `all_rows` (T x D) its effective embeddings, rho the residual's
    /// size at its input, `pairs` the composition scores into it (for naming the partners;
    /// `float64` decides where their bounds cannot), and the read-out for what a circuit writes
    /// (null: not measured). Fills metrics[h].circuits.
    void search_layer(const model::layer_weights& lw, const matrix& all_rows, double rho, const std::optional<io::rope_config>& rope,
                      const std::vector<composition_score>& pairs, const float64_scores& float64, const token_readout* readout,
                      const forward::decoder<double>* pass, std::vector<head_metrics>& metrics) const
    {
        const std::size_t H = lw.heads.size();
        if (writes_.empty()) {
            for (auto& m : metrics) m.circuits = circuit_search_result{{}, std::nullopt, "no earlier layer writes into this one"};
            return;
        }
        const matrix rows = sampled(all_rows);
        const layer_sides sides(lw.heads, rows, writes_, lw.norm, rho);
        const std::size_t V = readout ? readout->vocabulary : rows.shape()[0];
        std::vector<std::vector<circuit_candidate>> found(H);
        numeric::for_each_block(H, [&](std::size_t h) { found[h] = circuit_candidates(h, sides, rope, V, settings_); });
        std::map<std::tuple<std::size_t, std::size_t, std::size_t>, const composition_score*> into;  // (source layer, source head, target head)
        for (const auto& p : pairs)
            if (p.target_layer == lw.layer) into[{p.source_layer, p.source_head, p.target_head}] = &p;
        std::optional<token_readout> sample;
        if (readout) sample = sampled(*readout);
        for (std::size_t h = 0; h < H; ++h) {
            auto& result = metrics[h].circuits.emplace();
            result.candidates = std::move(found[h]);
            // Side partners read Q (query side) or K (key side) composition, what a circuit writes V.
            const double scale = settings_.partner_bound_scale;
            const auto composition = [&](const earlier_head& e, bool key_side) {
                const auto it = into.find({e.layer, e.head, h});
                if (it == into.end()) return bounded_score{};
                const auto& p = *it->second;
                return key_side ? bounded_score{p.k, scale * p.k_bound} : bounded_score{p.q, scale * p.q_bound};
            };
            const auto float64_score = [&](const earlier_head& e, bool key_side) {
                if (!into.contains({e.layer, e.head, h})) return 0.0;  // as the bounded scores: no pair, no score
                const auto p = float64(e.layer, e.head, h);
                return key_side ? p.k : p.q;
            };
            for (auto& c : result.candidates) {
                c.query.partners = side_partners(writes_, c.query.offset, false, composition, float64_score);
                c.key.partners = side_partners(writes_, c.key.offset, true, composition, float64_score);
            }
            const auto strongest = std::find_if(result.candidates.begin(), result.candidates.end(),
                                                [&](const circuit_candidate& c) { return c.top1_share >= settings_.threshold; });
            if (strongest == result.candidates.end()) continue;
            head_circuit chosen{labels::circuit_label(static_cast<std::size_t>(strongest->shift)), *strongest, std::nullopt, false};
            const int s = chosen.circuit.shift;
            if (s <= 1 && metrics[h].per_token_copying) {
                // It attends to the earlier occurrence or the token after it and writes its own token.
                const auto& own = *metrics[h].per_token_copying;
                chosen.output = circuit_output{{0, {}}, own.top1_share, own.top1_interval};
            } else if (s >= 2 && sample && pass) {
                const auto m = static_cast<std::size_t>(s - 1);
                const matrix inputs = through_norm_scale(writes_.by_offset[m - 1], lw.norm, rho);
                const auto copied = copying_per_token({lw.heads[h]}, *sample, *pass, 512, 512, &inputs, settings_.copying_precision);
                const auto value = [&](const earlier_head& e, bool) {
                    const auto it = into.find({e.layer, e.head, h});
                    return it == into.end() ? bounded_score{} : bounded_score{it->second->v, scale * it->second->v_bound};
                };
                const auto float64_value = [&](const earlier_head& e, bool) { return into.contains({e.layer, e.head, h}) ? float64(e.layer, e.head, h).v : 0.0; };
                chosen.output = circuit_output{{m, side_partners(writes_, m, true, value, float64_value)}, copied[0].top1_share, copied[0].top1_interval};
            }
            chosen.predicts_next_token = s >= 1 && chosen.output && chosen.output->value.offset == static_cast<std::size_t>(s - 1) &&
                                         chosen.output->top1_share >= settings_.threshold;
            result.circuit = std::move(chosen);
        }
    }

private:
    circuit_search_settings settings_;
    std::vector<std::size_t> rows_;  ///< the sampled tokens' rows in the read-out
    offset_writes writes_;
};

} // namespace qkov::scan
