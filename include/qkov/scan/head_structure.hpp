// What a head's W_q and W_k say about position and content, as the scan reports it: the
// one-direction shares (claim R7), how constant the direction a head reads is over the
// vocabulary, RoPE's per-pair energy and phase (claims B4, R12), and the offset profile of the
// constant the head reads with its certificate (docs/SCAN-LABELS.md). Result types only, measured by
// structure_measurement.hpp, so what reads or writes them (labels, JSON, reports) needs none of the
// computation.
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace qkov::scan {

/// One RoPE pair of a head's QK circuit.
struct pair_structure {
    std::size_t pair = 0;
    double theta = 0;             ///< its angle per position (scaling applied when modelled)
    double energy_share = 0;      ///< of the head's QK energy (rotated pairs and unrotated block)
    double phase = 0;             ///< the rotation at which the pair scores the same content highest, in (-pi, pi]
    double preferred_offset = 0;  ///< -phase / theta: the offset delta that rotation corresponds to
    bool slow = false;            ///< theta * context < pi / 2
};

struct rope_structure {
    std::vector<pair_structure> pairs;
    double unrotated_share = 0;  ///< the dimensions past rotary_dim (partial rotary)
    double slow_share = 0;       ///< slow pairs plus the unrotated dimensions
    double slow_baseline = 0;    ///< the share they would hold with energy spread evenly over dimensions
    std::size_t context = 0;     ///< N of the slow-pair test and the offset profile
    std::string angles;          ///< how theta was obtained ("base 10000", "base 10000, linear scaling x4", ...)
    bool angles_modelled = true; ///< false for a scaling type forward/rope_schedule.hpp does not apply
};

/// How constant the projections of the (normed) token embeddings on a direction are.
struct reading_constancy {
    double mean = 0, spread = 0;  ///< mean and standard deviation over the tokens sampled
    [[nodiscard]] double variation() const { return mean == 0 ? INFINITY : spread / std::abs(mean); }
};

enum class certificate_status { holds, undecided, fails };

inline const char* status_name(certificate_status s)
{
    switch (s) {
    case certificate_status::holds: return "holds";
    case certificate_status::undecided: return "undecided";
    case certificate_status::fails: return "fails";
    }
    return "?";
}

/// "Over every offset 0 .. last except `offset`, the score is below s(offset) by a margin in
/// [margin_lower, margin_upper]", decided in interval arithmetic.
struct offset_certificate {
    certificate_status status = certificate_status::undecided;
    std::size_t offset = 0, last = 0;
    double margin_lower = 0, margin_upper = 0;  ///< enclosure of min over offsets of s(offset) - s(delta)
    std::size_t undecided_offsets = 0;          ///< offsets whose gap enclosure contains 0
};

/// s(delta) = q0^T R_{-delta} k0 for delta = 0 .. N, q0 = W_q c + b_q, k0 = W_k c + b_k.
struct offset_profile {
    std::vector<double> score;
    std::size_t best = 0;            ///< argmax of score
    double runner_up_fraction = 0;   ///< (s(best) - max_{delta != best} s) / (max s - min s)
    std::optional<offset_certificate> certificate;
};

struct head_structure {
    double one_direction_q = 0, one_direction_k = 0;  ///< sigma_1^2 / sum sigma_i^2 of W_q, W_k
    std::optional<reading_constancy> reading_q, reading_k;  ///< with the token embedding only
    std::optional<rope_structure> rope;
    std::optional<offset_profile> profile;  ///< RoPE heads with a reading to profile
};

} // namespace qkov::scan
