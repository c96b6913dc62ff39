// What the scan reports of a head's predicted attention (computed by head_prediction.hpp): a result
// type only, so what reads or writes it (labels, JSON, reports) needs none of the computation.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace qkov::scan {

/// Everything the mean field says about one head.
struct mean_field_evidence {
    std::vector<double> by_offset;  ///< p(delta), delta = 0 .. W
    double bos = 0;
    double previous = 0;                   ///< the previous-token score: attention on key m - 1 over queries 1 .. N
    std::size_t first_query = 0, last_query = 0, window = 0;
    double swing = 0;                      ///< nats over offsets 0 .. W, from the kernel
    std::optional<double> swing_bound;     ///< certified upper bound on the swing (RoPE: per pair; learned: from the kernel), given mu_l
    std::optional<double> swing_bound_every_input;  ///< RoPE: certified for every input the layer's norm can produce
    std::vector<double> by_offset_lower;   ///< certified lower bounds of p(delta) where p(delta) reaches the threshold, else 0 (empty: not certified)
    std::optional<double> top_two_lower;   ///< certified lower bound of the two largest offsets' mass
    std::optional<double> bos_lower;
    std::optional<double> previous_lower;  ///< certified lower bound of `previous` where it reaches the threshold
    double content_deviations = 0;         ///< the bounds hold for content within this many standard deviations
    std::string positions;                 ///< "rope", "nope", "learned"
    std::optional<double> content_spread;  ///< nats: the standard deviation content gives a key's score (mean over queries); nullopt without it
};

} // namespace qkov::scan
