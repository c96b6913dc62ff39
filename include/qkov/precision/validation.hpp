// The high-precision validation table (kind H of CLAIMS.md): R1, R2, R4, R5, T2, B2 and B3 at a
// given working precision, each a residual with its derived bound and the time it took.
// Validation, not proof: see residual.hpp.
//
// Sizes are fixed here (they are template arguments): d = 256 for the rotation identities,
// d x D = 256 x 768 for R2's scores, 64 x 768 for T2's circuits and B2, 16 x 768 for B3 (whose
// library functions form three D x d temporaries on the stack: 16 keeps them under 1 MB each at
// 100 digits), d = 64 for R5 (the size proofs/R5 certifies). Positions reach max_position.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "qkov/precision/circuit_residuals.hpp"
#include "qkov/precision/residual.hpp"
#include "qkov/precision/rope_residuals.hpp"
#include "qkov/precision/validation_plan.hpp"

namespace qkov::precision {

namespace detail {
template <class F>
std::pair<decltype(std::declval<F>()()), double> timed(F&& f)
{
    const auto start = std::chrono::steady_clock::now();
    auto value = f();
    return {std::move(value), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}
} // namespace detail

/// The rows of the table that `plan.claims` asks for (every row when it is empty), in the table's
/// order, at the precision of T. std::invalid_argument names a claim without a row.
template <class T>
std::vector<validation_row> validate_claims(const validation_plan& plan)
{
    check_validation_claims(plan.claims);
    const int digits = decimal_digits<T>();
    const std::string positions = "positions to " + std::to_string(plan.max_position);
    const auto wanted = [&](const std::string& claim) {
        return plan.claims.empty() || std::find(plan.claims.begin(), plan.claims.end(), claim) != plan.claims.end();
    };
    std::vector<validation_row> rows;
    // The rows below are validation_claims(), in order: the list `--claims` is checked against.
    // Each row is held to its place before it runs, whichever rows are asked for.
    const auto& table = validation_claims();
    std::size_t place = 0;
    auto add = [&](std::string claim, std::string size, auto&& run) {
        if (place >= table.size() || table[place++] != claim)
            throw std::logic_error("qkov: validation row " + claim + " is not in its place in validation_claims()");
        if (!wanted(claim)) return;
        auto [result, seconds] = detail::timed(run);
        rows.push_back({std::move(claim), std::move(size), digits, std::move(result), seconds});
    };
    constexpr double base = 10000;
    const auto p = plan.max_position;
    add("R1", "d = 256, " + positions, [&] { return rotation_group_residual<T, 256>(base, p, plan.rotation_samples, plan.seed); });
    add("R2", "d = 256, D = 768, " + positions,
        [&] { return relative_position_residual<T, 256, 768>(base, p, plan.rotation_samples, plan.seed + 10); });
    add("R4", "d = 256, " + positions,
        [&] { return previous_token_profile_residual<T, 256>(base, 1.0, p, plan.rotation_samples, plan.seed + 20); });
    add("R5", "d = 64, window 20, " + positions,
        [&] { return previous_token_gap_residual<T, 64>(base, 1.0, 20, p, plan.gap_samples, plan.seed + 30); });
    add("T2", "d = 64, D = 768", [&] { return circuit_rank_residual<T, 64, 768>(plan.kernel_samples, plan.seed + 40); });
    add("B2", "d = 64, D = 768", [&] {
        return absorption_residual<T, 64, 768>(base, p, plan.absorption_samples, plan.seed + 50, false).bias;
    });
    add("B3", "d = 16, D = 768, " + positions,
        [&] { return absorption_residual<T, 16, 768>(base, p, plan.absorption_samples, plan.seed + 60).rope; });
    if (place != table.size()) throw std::logic_error("qkov: validation_claims() names a claim the validation has no row for");
    return rows;
}

} // namespace qkov::precision
