// What the scan reports of a head's composed circuits (computed by circuit_search.hpp, which gives
// the definitions): a head h2 whose query reads the token k_q positions back and whose key reads
// the token k_k back, through what earlier heads write at those offsets (or its own token, k = 0),
// attends on a repeat to the token s = k_k - k_q after an earlier occurrence of the query's
// context. Per candidate: the offsets, the earlier heads that carry each side (the partners), the
// per-token diagonal test of the composed token-level QK circuit, and what the head then writes.
// A result type only, so what reads or writes it (labels, the JSON, the reports) needs none of the
// computation.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace qkov::scan {

/// An earlier head carrying one side of a circuit: its mean-field attention at the side's offset
/// (the weight its write enters with) and its share of that side's composed circuit.
struct circuit_partner {
    std::size_t layer = 0, head = 0;
    double attention = 0;  ///< the head's predicted attention at the side's offset
    double share = 0;      ///< of the side: attention x its composition score, over the sum of them
};

/// One side (query or key) of a composed circuit: offset 0 is the head's own input at that position.
struct circuit_side {
    std::size_t offset = 0;
    std::vector<circuit_partner> partners;  ///< strongest first; empty for offset 0
};

/// The per-token diagonal test of one composed QK circuit at one query-key offset.
struct diagonal_test {
    std::size_t offset = 0;  ///< delta = query position - key position the rotation is taken at
    double top1_share = 0, top5_share = 0;
    double median_margin = 0;  ///< (entry [a, a] - the row's best other) / the row's standard deviation, median over a
    double median_boost = 0;   ///< (entry [a, a] - the row's mean) / sqrt(d), median over a: nats the match adds to the key's score
};

/// One candidate circuit of a head.
struct circuit_candidate {
    circuit_side query, key;
    int shift = 0;                      ///< s = key offset - query offset: attends to the token s after an earlier occurrence
    std::vector<diagonal_test> by_offset;  ///< the tests over the offsets the context spans
    double top1_share = 0;              ///< the mean of by_offset's top-1 shares: a repeat at a distance drawn evenly from them
    double top5_share = 0;
    double boost = 0;                   ///< the mean of by_offset's median boosts: how far the match raises a key's score, in nats
    std::pair<double, double> top1_interval{0, 1};  ///< Wilson 95 % over the tokens (exact share when every token is read)
    std::size_t tokens = 0, vocabulary = 0;          ///< the tokens the test reads (rows and columns), and V
};

/// What a circuit's head writes at the position it attends to: its own token (offset 0, the head's
/// per-token copying) or, through V-composition, the token m positions before it (what earlier
/// heads wrote there at offset m).
struct circuit_output {
    circuit_side value;  ///< offset m and the earlier heads carrying it
    double top1_share = 0;  ///< tokens raised above every other by the head's read-out of that side
    std::pair<double, double> top1_interval{0, 1};
};

/// The circuit a head is labelled by, and what it writes.
struct head_circuit {
    std::string label;  ///< duplicate_token (s = 0), induction (s = 1), repeat_shift_<s> (s >= 2)
    circuit_candidate circuit;
    std::optional<circuit_output> output;  ///< nullopt when nothing it could write is measured (no read-out)
    /// The token after the earlier occurrence, which a repeat continues with: written when the head
    /// attends s after and writes the token s - 1 before where it attends.
    bool predicts_next_token = false;
};

/// Every circuit the search tried for a head, and the one it is labelled by.
struct circuit_search_result {
    std::vector<circuit_candidate> candidates;  ///< strongest first: by boost
    std::optional<head_circuit> circuit;        ///< the strongest whose top-1 share reaches the label's threshold
    std::string missing;                        ///< why no search ran (empty when it did)
};

} // namespace qkov::scan
