// The RoPE precision audit picked at run time: the layout is a template argument of the
// library's RoPE, so the audit is compiled for a fixed list of layouts (supported_audit_layouts)
// and audit_rope checks the settings and runs the one that matches.
#pragma once

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "qkov/circuits/rope_layout.hpp"
#include "qkov/precision/rope_audit_report.hpp"
#include "qkov/precision/rope_audit_run.hpp"
#include "qkov/precision/rope_audit_settings.hpp"

namespace qkov::precision {

/// The layouts the audit is compiled for: d in {64, 128, 256}, rotary_dim in {d, d/2, d/4}, both pairings.
inline constexpr auto supported_audit_layouts = [] {
    std::array<rope_layout, 18> layouts{};
    std::size_t k = 0;
    for (std::size_t d : {64, 128, 256})
        for (std::size_t rotary : {d, d / 2, d / 4})
            for (rope_pairing pairing : {rope_pairing::interleaved, rope_pairing::rotate_half}) layouts[k++] = {d, rotary, pairing};
    return layouts;
}();

namespace detail {
template <std::size_t I = 0>
audit_report dispatch_audit(const audit_settings& s, const audit_inputs& inputs)
{
    if constexpr (I == supported_audit_layouts.size()) {
        throw std::invalid_argument("qkov: the RoPE audit is built for d in {64, 128, 256} with rotary_dim d, d/2 or d/4; got d = " +
                                    std::to_string(s.d) + ", rotary_dim = " + std::to_string(s.rotary_dim));
    } else {
        constexpr rope_layout L = supported_audit_layouts[I];
        if (L == rope_layout{s.d, s.rotary_dim, s.pairing}) return run_rope_audit<L>(s, inputs);
        return dispatch_audit<I + 1>(s, inputs);
    }
}
} // namespace detail

/// Runs the audit; throws std::invalid_argument for settings it cannot honour.
inline audit_report audit_rope(const audit_settings& s, const audit_inputs& inputs = {})
{
    check_audit_settings(s);
    return detail::dispatch_audit(s, inputs);
}

} // namespace qkov::precision
