// Which positions the RoPE precision audit looks at: decade buckets up to the largest position,
// every position of a small bucket, the two ends and a reproducible uniform sample of a large one.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "qkov/matrix/random_integer_matrix.hpp"
#include "qkov/precision/rope_audit_report.hpp"
#include "qkov/precision/rope_audit_settings.hpp"

namespace qkov::precision {

/// Decades [0, 9], [10, 99], ... up to max_position (any max_position >= 0: the decade bound
/// stops growing at max_position, so nothing overflows near INT64_MAX).
inline std::vector<bucket_errors> position_buckets(std::int64_t max_position)
{
    std::vector<bucket_errors> buckets;
    for (std::int64_t first = 0, last = 9; first <= max_position;) {
        bucket_errors b;
        b.first = first;
        b.last = std::min(last, max_position);
        buckets.push_back(b);
        if (b.last == max_position) break;
        first = last + 1;
        last = last > (INT64_MAX - 9) / 10 ? INT64_MAX : last * 10 + 9;
    }
    return buckets;
}

/// The positions the audit samples (sorted, distinct).
inline std::vector<std::int64_t> audit_positions(const audit_settings& s)
{
    splitmix64 random(s.seed);
    std::vector<std::int64_t> positions;
    for (const auto& b : position_buckets(s.max_position)) {
        const auto count = static_cast<std::size_t>(b.last - b.first + 1);
        if (count <= s.samples_per_bucket) {
            for (std::int64_t p = b.first; p <= b.last; ++p) positions.push_back(p);
            continue;
        }
        positions.push_back(b.first);
        positions.push_back(b.last);
        for (std::size_t k = 2; k < s.samples_per_bucket; ++k) positions.push_back(random.uniform(b.first, b.last));
    }
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    return positions;
}

} // namespace qkov::precision
