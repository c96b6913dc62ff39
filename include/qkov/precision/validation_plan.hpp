// What the high-precision validation is asked (validation_plan) and what each of its rows holds
// (validation_row), apart from the computation (validation.hpp), so that a caller which only hands
// a plan over and reads the rows back compiles none of the high-precision arithmetic.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/precision/residual.hpp"

namespace qkov::precision {

/// The range of validation_plan::max_position that `qkov validate --max-position` and Python's
/// validate(max_position=...) both accept: one definition for both, so neither runs for days.
inline constexpr std::int64_t smallest_max_position = 64, largest_max_position = 100'000'000;

/// The claims the validation table has a row for, in the table's order (validation.hpp computes
/// them, and refuses a row that is not in its place here).
inline const std::vector<std::string>& validation_claims()
{
    static const std::vector<std::string> claims{"R1", "R2", "R4", "R5", "T2", "B2", "B3"};
    return claims;
}

struct validation_plan {
    std::int64_t max_position = 10'000'000;
    std::size_t rotation_samples = 20;   ///< R1, R2 (rotations and scores), R4
    std::size_t gap_samples = 4;         ///< R5: positions n, each with the whole window
    std::size_t kernel_samples = 8;      ///< T2
    std::size_t absorption_samples = 3;  ///< B2, B3 (each B3 sample forms two D x D maps)
    std::uint64_t seed = 2024;
    std::vector<std::string> claims;     ///< the rows to compute, of validation_claims(); empty: all
};

/// std::invalid_argument naming a claim the validation table has no row for, with those it has.
inline void check_validation_claims(const std::vector<std::string>& claims)
{
    const auto& known = validation_claims();
    for (const auto& claim : claims)
        if (std::find(known.begin(), known.end(), claim) == known.end()) {
            std::string names;
            for (const auto& k : known) names += (names.empty() ? "" : ", ") + k;
            throw std::invalid_argument("qkov: the validation has no row for claim '" + claim + "': it validates " + names);
        }
}

/// The plan of `qkov validate --quick` and Python's validate(quick=True): `plan` with few samples
/// (a smoke run), its positions, seed and claims kept.
inline validation_plan quick_plan(const validation_plan& plan)
{
    validation_plan quick = plan;
    quick.rotation_samples = 2, quick.gap_samples = 1, quick.kernel_samples = 2, quick.absorption_samples = 1;
    return quick;
}

struct validation_row {
    std::string claim;
    std::string size;
    int digits = 0;
    residual result;
    double seconds = 0;
};

} // namespace qkov::precision
