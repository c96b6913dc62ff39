// Certified bounds for seed 001's previous-token head over a window of positions (claims R5,
// R6, T4), computed from its profile (R4 proves q_{n+1}^T k_m = alpha sum_l cos((m - n) theta_l)
// for all positions and angles, so bounds on the profile are bounds on the head).
//
// The gap of offset k is g(k) = d/2 - sum_l cos(k theta_l): the previous token scores (d/2) alpha,
// a key k positions before it scores (d/2 - g(k)) alpha. Angles come from numeric_angles over
// certified intervals; offsets enter as intervals of integers, so one evaluation bounds a whole
// block of the window (integer_range_bounds.hpp).
#pragma once

#include <cstdint>
#include <stdexcept>

#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/scalar/certified.hpp"
#include "qkov/scalar/integer_range_bounds.hpp"
#include "qkov/scalar/interval.hpp"
#include "qkov/scalar/interval_functions.hpp"

namespace qkov {

/// g(k) = d/2 - sum_l cos(k theta_l), enclosed for every integer offset k in `offsets`.
template <rope_layout L, class Angles>
constexpr interval previous_token_gap(const Angles& angles, const interval& offsets)
{
    return interval(L.rotary_dim / 2) - previous_token_profile<L>(angles, offsets);
}

/// min_{1 <= k <= window} g(k), certified: the previous token outscores every key up to `window`
/// positions before it by at least (lower bound) x alpha.
template <rope_layout L, class Angles, native_integer First, native_integer Last>
constexpr certified certified_minimum_gap(const Angles& angles, First first_offset, Last last_offset)
{
    return certified_minimum([&angles](const interval& k) { return previous_token_gap<L>(angles, k); }, first_offset,
                             last_offset);
}

/// The previous-token attention mass of the head in the worst row of a causal window of N tokens.
///
/// Row i (0-based, i >= 1) attends to keys j = 0..i; key j lies k = i - 1 - j positions before the
/// previous token (k = -1 is the query's own token, and g(-1) = g(1)). With logits
/// alpha (d/2 - g(k)) the previous token's mass is 1 / (1 + sum_{j != i-1} exp(-alpha g(k_j))).
/// Every term is positive, so the mass falls as rows grow and the last row is the worst:
///     m(alpha, N) = 1 / (1 + S),   S = exp(-alpha g(1)) + sum_{k=1}^{N-2} exp(-alpha g(k)).
/// (With softmax scaled by 1/sqrt(d), pass alpha / sqrt(d).) Each term falls with alpha, so a
/// bound at alpha holds for every larger alpha too.
struct previous_token_mass_bound {
    certified mass;               ///< m(alpha, N)
    certified off_previous_mass;  ///< 1 - m = S / (1 + S): informative where m rounds to 1
};

template <rope_layout L, class Angles, native_integer Window>
constexpr previous_token_mass_bound certified_previous_token_mass(const Angles& angles, const interval& alpha,
                                                                  Window window_in, double relative_width = 1e-3)
{
    const std::int64_t window = detail::range_end(window_in);
    if (window < 2) throw std::invalid_argument("qkov: the previous-token mass needs a window of at least 2 tokens");
    if (!(alpha.lo() > 0.0)) throw std::invalid_argument("qkov: the previous-token head needs alpha > 0");
    auto term = [&](const interval& k) { return exp(-(alpha * previous_token_gap<L>(angles, k))); };
    interval sum = term(interval(1));  // the query's own token, k = -1
    if (window > 2) sum += certified_sum(term, 1, window - 2, relative_width).enclosure();
    const interval one(1.0);
    return {certified(one / (one + sum)), certified(sum / (one + sum))};
}

} // namespace qkov
