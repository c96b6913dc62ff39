// What the scan reports of a head's predicted attention (computed by head_prediction.hpp): a result
// type only, so what reads or writes it (labels, JSON, reports) needs none of the computation.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace qkov::scan {

/// The widths a certificate let each score move by, in nats from the mean field's score: for a
/// stationary kernel (RoPE, NoPE) per key offset delta = 0 .. N (offset 0: the query's own token),
/// then the BOS key per query m = 0 .. N; for learned positions per (query m, key n), row-major,
/// (N + 1)^2 entries. A certificate holds for every input whose scores stay within them.
struct certificate_widths {
    bool stationary = true;
    std::size_t positions = 0;  ///< N
    std::vector<double> lower, upper;
};

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
    double content_deviations = 0;         ///< the widths are this many standard deviations of each score's content (0: none)
    std::optional<certificate_widths> widths;  ///< the widths the certificates allowed (nullopt: no widening, or no certificate)
    std::string inputs_sha256;  ///< of the proxy rows, mu_l and the widths the certificates read (proxy_dump.hpp)
    std::string positions;                 ///< "rope", "nope", "learned"
    std::optional<double> content_spread;  ///< nats: the standard deviation content gives a key's score (mean over the window's keys); nullopt without it
};

} // namespace qkov::scan
