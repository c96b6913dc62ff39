// Which keys a query may see: all of them, or (causal) only keys at its own position or earlier.
#pragma once

namespace qkov::numeric {

enum class masking { none, causal };

} // namespace qkov::numeric
