// The size of a RoPE precision audit known before it runs: how many implementations it measures
// and an upper bound of its running time, so a tool can warn before a long run.
#pragma once

#include <algorithm>
#include <cstddef>

#include "qkov/precision/rope_audit_positions.hpp"
#include "qkov/precision/rope_audit_settings.hpp"

namespace qkov::precision {

/// How many implementations the audit measures: 2 lines for fp32, 4 for bf16 and fp16, one per user input.
inline std::size_t audit_line_count(const audit_settings& s, const audit_inputs& inputs)
{
    std::size_t lines = (inputs.table ? 1 : 0) + (inputs.rotated ? 1 : 0);
    for (audit_dtype t : s.dtypes) lines += t == audit_dtype::fp32 ? 2 : 4;
    return lines;
}

/// An upper bound of the audit's running time in seconds, from its size: every sampled position
/// costs one 100-digit rotation (about 65 us per pair) and every head-scan step one rotation in the
/// implementation's type plus window + 2 dot products (about 0.4 us per pair and 1 ns per
/// multiply-add; measured with g++ -O2 on a 2-core x86-64 machine). An upper bound: the scan
/// stops at the first failing query.
inline double audit_seconds_estimate(const audit_settings& s, const audit_inputs& inputs = {})
{
    double positions = 0;
    for (const auto& b : position_buckets(s.max_position))
        positions += std::min(static_cast<double>(b.last - b.first + 1), static_cast<double>(s.samples_per_bucket));
    const double pairs = static_cast<double>(s.rotary_dim) / 2;
    const double last_query = static_cast<double>(s.head_scan_limit > 0 ? std::min(s.head_scan_limit, s.max_position) : s.max_position);
    const double step = pairs * 0.4e-6 + static_cast<double>(s.window + 2) * static_cast<double>(s.d) * 1e-9;
    return positions * pairs * 65e-6 + static_cast<double>(audit_line_count(s, inputs)) * last_query * step;
}

} // namespace qkov::precision
