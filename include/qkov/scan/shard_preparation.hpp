// `qkov scan --prepare-shards`: what the shards of one scan share, computed once and written for
// them (the format and its checks: shard_inputs.hpp). One forward pass through every layer, stepped
// as a scan steps it (scan_model.hpp's model_evidence), with the circuit writes the layers before
// each shard add, and W_E^T W_U read once; the shards then run none of it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/numeric/blas_threads.hpp"
#include "qkov/scan/scan_model.hpp"
#include "qkov/scan/shard_inputs.hpp"

namespace qkov::scan {

/// Writes into `dir` what the pass gives every layer, W_E^T W_U, and for each of `starts` (the
/// shards' first layers; layer 0 needs none) the circuit writes of the layers before it. `options`
/// are the shards' own (thresholds, circuit search, calibration); on_layer(l) is called as the pass
/// passes layer l.
inline void prepare_shard_inputs(const model::attention_model& m, const std::vector<std::size_t>& starts, const std::filesystem::path& dir,
                                 scan_options options, const std::function<void(std::size_t layer)>& on_layer = {})
{
    resolve_scan_defaults(m, options);
    const std::size_t layers = m.config().layers;
    std::set<std::size_t> at;
    for (const std::size_t s : starts) {
        if (s >= layers) throw std::invalid_argument("qkov: a shard cannot start at layer " + std::to_string(s) + " of a model of " + std::to_string(layers));
        if (s > 0) at.insert(s);
    }
    // One thread per BLAS call, as in scan_model: the numbers are the shards' own to the bit.
    const numeric::single_threaded_blas blas_on_one_thread;
    model_evidence evidence = read_model_evidence(m, options);
    shard_inputs_writer out(dir, shard_inputs_identity(m, options, evidence.proxy.mean_embedding));
    out.add_common(read_token_side(m));
    auto circuits = open_circuits(m, evidence, options);
    if (evidence.stepper)
        for (std::size_t l = 0; l < layers; ++l) {
            if (circuits && at.contains(l)) out.add_circuits(l, circuits->writes());
            evidence.advance_to(l);
            const auto& calibration = evidence.calibration;
            out.add_layer(l, evidence.proxy.layers.at(l).normed, evidence.readout->effective.rows.at(l), calibration ? &calibration->rows.at(l) : nullptr,
                          evidence.residual_scale.at(l));
            if (circuits && !at.empty() && l < *at.rbegin()) write_into_circuits(m, l, options, evidence, *circuits);
            evidence.release(l);
            if (on_layer) on_layer(l);
        }
    out.finish();
}

} // namespace qkov::scan
