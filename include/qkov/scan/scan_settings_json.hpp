// What a scan was run with, as JSON: the model's weight fingerprint and the thresholds and sample
// sizes the caller set. The document records them (scan_json.hpp) and the shards' shared inputs
// are identified by them (shard_inputs.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include "qkov/model/weight_fingerprint.hpp"
#include "qkov/scan/head_labels.hpp"

namespace qkov::scan::detail {

/// The weights a scan read to fingerprint the model (model/weight_fingerprint.hpp).
inline nlohmann::json fingerprint_json(const model::weight_fingerprint& f)
{
    return {{"layers", f.layers}, {"rows", f.rows}, {"columns", f.columns}, {"values", f.values}};
}

/// The thresholds and sample sizes a caller set (label_thresholds), by name.
inline nlohmann::json label_thresholds_json(const label_thresholds& t)
{
    return {{"offset_mass", t.offset_mass},       {"sink", t.sink},
            {"semantic_swing", t.semantic_swing}, {"copy_top1", t.copy_top1},
            {"copying", t.copying},               {"suppression_bottom10", t.suppression_bottom10},
            {"window", t.window},                 {"queries", t.queries}, {"content_tokens", t.content_tokens},
            {"copy_tokens", t.copy_tokens},       {"content_deviations", t.content_deviations},
            {"circuit_tokens", t.circuit_tokens}, {"circuit_share", t.circuit_share},
            {"one_direction", t.one_direction},
            {"constant_reading", t.constant_reading}, {"slow_share", t.slow_share},
            {"context", t.context}};
}

} // namespace qkov::scan::detail
