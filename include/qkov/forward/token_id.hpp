// A token id as the forward pass reads it, and every sequence of the detection holds: apart from
// the pass, so that a result holding tokens needs none of it.
#pragma once

#include <cstdint>

namespace qkov::forward {

using token_id = std::uint32_t;

} // namespace qkov::forward
