// The setting of the certified proofs (R5, R6, R8, R10, T4 soft): seed 001's head width d = 64,
// interleaved pairs, and the standard schedule with base 10000, in certified intervals.
#pragma once

#include <cstddef>

#include "qkov/circuits/rope.hpp"
#include "qkov/scalar/interval.hpp"
#include "qkov/scalar/interval_functions.hpp"

namespace qkov::seed_setting {
constexpr std::size_t d = 64;
constexpr rope_layout L = interleaved_layout(d);
constexpr numeric_angles<interval, d / 2> angles{standard_theta<interval, d / 2>(10000.0)};
} // namespace qkov::seed_setting
