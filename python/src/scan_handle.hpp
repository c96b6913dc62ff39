// What a Python qkov.Scan holds (scan_bindings.cpp makes it; detect_bindings.cpp compares a
// detection with it in memory, detect/scan_labels_of_result.hpp).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "bindings.hpp"
#include "qkov/scan/composition_tensors.hpp"
#include "qkov/scan/scan_facts.hpp"
#include "qkov/scan/scan_result.hpp"

namespace qkov::python {

/// A finished scan: what scan_model returned and what its document needs besides.
struct scan_handle {
    model_pointer model;
    scan::scan_result result;
    std::vector<scan::scan_fact> facts;
    nlohmann::json summary;  ///< the model's summary (model_summary.hpp), as the document's "model"
    std::size_t first_layer = 0, last_layer = 0;
    std::optional<scan::composition_tensors_ref> tensors;  ///< the pairs' file's reference once to_json made it (its bytes do not depend on its name)
};

} // namespace qkov::python
