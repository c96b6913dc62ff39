// One behaviour's example (example_patterns.hpp finds it): the head that shows the behaviour most
// strongly, its measured value, and its pattern on the detection's first sequence. A result type
// only, so the figures that draw it need none of the forward pass.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qkov/forward/token_id.hpp"

namespace qkov::detect {

using forward::token_id;

struct example_pattern {
    std::string behaviour;
    std::size_t layer = 0, head = 0;
    double measured = 0;  ///< the value its rule compares with the threshold
    std::vector<token_id> tokens;
    std::vector<double> pattern;  ///< n x n, row = query, row-major
};

} // namespace qkov::detect
