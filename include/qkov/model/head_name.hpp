// How every report names a head: "L.H", its layer and its index in the layer, both 0-based (the
// scan's tables and figures, the detectors', the JSON keys of neither: those keep the numbers).
#pragma once

#include <cstddef>
#include <string>

namespace qkov::model {

inline std::string head_name(std::size_t layer, std::size_t head) { return std::to_string(layer) + "." + std::to_string(head); }

} // namespace qkov::model
