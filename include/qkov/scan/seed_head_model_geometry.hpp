// The sizes of the seed-head model (seed_head_model.hpp writes it, and says which head is where):
// what the model is built from and what its facts (scan_facts.hpp) check, without the writer.
#pragma once

#include <cstddef>

namespace qkov::scan {

struct seed_head_model_geometry {
    static constexpr std::size_t D = 192, d = 64, heads = 2, layers = 2, vocabulary = 64, context = 4096;
    static constexpr std::size_t semantic_first_pair = 28;  ///< d0 = d - d/8 = 56 coordinates, 28 pairs
    static constexpr std::size_t passed_dimensions = 32;    ///< of L0H0's output that L1H0 reads
    static constexpr std::size_t mlp_width = 8;             ///< zero MLP weights: only their presence matters
};

} // namespace qkov::scan
