// What the RoPE precision audit hands back: per implementation (audit_line) its errors by
// position bucket (bucket_errors), its cos/sin error curve and where the previous-token head
// first fails; for the run (audit_report) the settings, the files read and the exact head's gap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "qkov/precision/rope_audit_settings.hpp"

namespace qkov::precision {

struct bucket_errors {
    std::int64_t first = 0, last = 0;  ///< the bucket's positions [first, last]
    std::size_t positions = 0;         ///< how many were sampled
    double angle_abs = 0, angle_rel = 0, cos_sin_abs = 0, cos_sin_rel = 0, score_abs = 0, score_rel = 0;
};

struct audit_line {
    std::string label;   ///< e.g. "bf16, fp32 angles"
    std::string recipe;  ///< how inv_freq, the angle and cos/sin are computed
    std::vector<bucket_errors> buckets;
    std::vector<std::pair<std::int64_t, double>> curve;  ///< (position, max |cos/sin error|), sampled positions
    std::int64_t breakdown_query = -1;  ///< first query position n + 1 whose largest score is not on key n; -1: none
    std::int64_t scanned_to = 0;        ///< last query position scanned
};

struct audit_report {
    audit_settings settings;
    std::vector<std::string> user_files;  ///< the .npy files audited
    std::vector<audit_line> lines;
    /// Exact arithmetic (100 digits): the smallest alpha (pairs - sum_l cos(k theta_l)) over
    /// offsets k = 1 .. window, i.e. the previous token's lead; positive means the head works.
    double reference_smallest_gap = 0;
};

} // namespace qkov::precision
