// The RoPE precision audit for one layout, a template argument of the library's RoPE: the
// user's files checked first, the 100-digit reference at the sampled positions, then every
// implementation (fp32, bf16, fp16 recipes from practice_angles.hpp, a user's table or rotated
// vectors) measured against it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "qkov/circuits/previous_token_bounds.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/io/npy.hpp"
#include "qkov/precision/practice_angles.hpp"
#include "qkov/precision/rope_audit_estimate.hpp"
#include "qkov/precision/rope_audit_measure.hpp"
#include "qkov/precision/rope_audit_positions.hpp"
#include "qkov/precision/rope_audit_report.hpp"
#include "qkov/precision/rope_audit_settings.hpp"
#include "qkov/precision/rotated_vector_angles.hpp"
#include "qkov/precision/table_angles.hpp"
#include "qkov/scalar/narrow_float.hpp"

namespace qkov::precision {

/// The audit for one layout (a template argument of the library's RoPE).
template <rope_layout L>
audit_report run_rope_audit(const audit_settings& s, const audit_inputs& inputs = {})
{
    using Ref = detail::audit_reference_scalar;
    using R = rope_rotation<Ref, L>;
    constexpr std::size_t pairs = L.rotary_dim / 2;
    audit_report report;
    report.settings = s;

    // The user's files first: a bad file fails before the 100-digit reference is computed.
    auto require_positions = [&](std::int64_t available, const std::string& path) {
        if (available <= s.max_position)
            throw audit_setting_error("max_position", std::to_string(s.max_position) + " needs " + std::to_string(s.max_position + 1) +
                                                          " positions; " + path + " has " + std::to_string(available));
    };
    std::optional<table_angles> table;
    std::optional<rotated_vector_angles> rotated;
    if (inputs.table) {
        table.emplace(*inputs.table, L);
        require_positions(table->positions(), inputs.table->path);
        report.user_files.push_back(inputs.table->path);
    }
    if (inputs.rotated || inputs.unrotated) {
        if (!inputs.rotated || !inputs.unrotated)
            throw std::invalid_argument("rotated vectors need both files: the rotated rows and the unrotated vector");
        rotated.emplace(*inputs.rotated, *inputs.unrotated, L);
        require_positions(rotated->positions(), inputs.rotated->path);
        report.user_files.push_back(inputs.rotated->path);
        report.user_files.push_back(inputs.unrotated->path);
    }

    numeric_angles<Ref, pairs> reference_angles{standard_theta<Ref, pairs>(s.base)};
    for (auto& t : reference_angles.theta) t /= Ref(s.position_scale);
    const auto q = detail::audit_vector<L.d>(s.seed + 1), k = detail::audit_vector<L.d>(s.seed + 2);
    const auto q_ref = detail::convert<double, Ref>(q), k_ref = detail::convert<double, Ref>(k);

    std::vector<detail::reference_point<pairs>> reference;
    for (std::int64_t p : audit_positions(s)) {
        detail::reference_point<pairs> point;
        point.position = p;
        const R rotation = R::at(reference_angles, p);
        for (std::size_t l = 0; l < pairs; ++l) {
            point.angle[l] = reference_angles.angle(l, p);
            point.cos[l] = static_cast<double>(rotation.block_at(l)(0, 0));
            point.sin[l] = static_cast<double>(rotation.block_at(l)(1, 0));
        }
        point.score = static_cast<double>((transpose(rotation * q_ref) * (R::at(reference_angles, p - 1) * k_ref))(0, 0));
        reference.push_back(std::move(point));
    }
    // The head's own gap (previous_token_bounds.hpp) in 100 digits; alpha > 0, so scaling the
    // smallest gap is the smallest scaled gap.
    report.reference_smallest_gap = static_cast<double>(Ref(Ref(s.alpha) * smallest_previous_token_gap<L>(reference_angles, 1, s.window)));

    const auto inv_freq = float32_inverse_frequencies<pairs>(s.base, s.position_scale);
    numeric_angles<double, pairs> float64_angles{standard_theta<double, pairs>(s.base)};
    for (auto& t : float64_angles.theta) t /= s.position_scale;
    const std::string fp32_recipe = "inv_freq = 1 / base^(2l/r) in fp32, angle = position * inv_freq in fp32, cos/sin in fp32";
    const std::string fp64_recipe = "inv_freq, angle and cos/sin in fp64";
    const std::size_t line_count = audit_line_count(s, inputs);
    auto add = [&](std::string label, std::string recipe, const auto& provider) {
        if (s.progress) s.progress(report.lines.size() + 1, line_count, label);
        const std::int64_t last_query = s.head_scan_limit > 0 ? std::min(s.head_scan_limit, s.max_position) : s.max_position;
        report.lines.push_back(detail::measure<L>(std::move(label), std::move(recipe), provider, reference, q, k, s, last_query));
    };
    for (audit_dtype dtype : s.dtypes) {
        const std::string name = to_string(dtype);
        auto narrow_lines = [&]<class X>() {
            add(name + ", all in " + name, "inv_freq computed in fp32 and stored in " + name + "; position, angle and cos/sin in " + name,
                practice_angles<X, X, pairs>{stored_frequencies<X, X>(inv_freq)});
            add(name + ", " + name + " inv_freq, fp32 angles",
                "inv_freq computed in fp32 and stored in " + name + "; angle and cos/sin in fp32; cast to " + name,
                practice_angles<X, float, pairs>{stored_frequencies<float, X>(inv_freq)});
            add(name + ", fp32 angles", fp32_recipe + "; cast to " + name,
                practice_angles<X, float, pairs>{stored_frequencies<float, float>(inv_freq)});
            add(name + ", fp64 angles", fp64_recipe + "; cast to " + name, practice_angles<X, double, pairs>{float64_angles});
        };
        if (dtype == audit_dtype::fp32) {
            add("fp32, fp32 angles", fp32_recipe, practice_angles<float, float, pairs>{stored_frequencies<float, float>(inv_freq)});
            add("fp32, fp64 angles", fp64_recipe + "; cast to fp32", practice_angles<float, double, pairs>{float64_angles});
        } else if (dtype == audit_dtype::bf16) {
            narrow_lines.template operator()<bf16>();
        } else {
            narrow_lines.template operator()<fp16>();
        }
    }
    if (table) add("table " + inputs.table->dtype, "cos/sin read from " + inputs.table->path + " (" + inputs.table->dtype + ")", *table);
    if (rotated)
        add("rotated " + inputs.rotated->dtype,
            "cos/sin recovered from the rotated vectors in " + inputs.rotated->path + " (" + inputs.rotated->dtype + ")", *rotated);
    return report;
}

} // namespace qkov::precision
