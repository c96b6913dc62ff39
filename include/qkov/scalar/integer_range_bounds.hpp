// Certified minimum and sum of f(k) over every integer k in [first, last], in constant evaluation.
//
// f takes an interval [a, b] of reals and returns an enclosure of f(x) for every x in it (an
// interval extension: the same code that evaluates f at a point, run in interval arithmetic,
// is one). Whole blocks of integers are evaluated at once and only blocks that do not yet decide
// are split in two (branch and bound), so a window of thousands of positions costs tens of
// evaluations where f is far from its extreme on most of the window. Whatever the evaluation
// budget, the result encloses the true minimum or sum: running out only makes it wider.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "qkov/scalar/certified.hpp"
#include "qkov/scalar/interval.hpp"
#include "qkov/scalar/native_integer.hpp"

namespace qkov {

namespace detail {
struct integer_block {
    std::int64_t first;
    std::int64_t last;
    interval value;  ///< encloses f(k) for every k in [first, last]

    [[nodiscard]] constexpr std::int64_t size() const { return last - first + 1; }
};

template <class F>
constexpr integer_block evaluate_block(F& f, std::int64_t first, std::int64_t last)
{
    return {first, last, f(interval(interval(first).lo(), interval(last).hi()))};
}

/// An end of an integer range, from any native integer: its exact value when it fits 64 bits,
/// refused otherwise (a uint64 2^64 - 1 must not become -1, nor a double 2.5 become 2: floating
/// point matches no overload).
template <native_integer N>
constexpr std::int64_t range_end(N k)
{
    if (!fits_in<std::int64_t>(k)) throw std::invalid_argument("qkov: an integer range end must lie within +-2^53");
    return static_cast<std::int64_t>(k);
}

constexpr void check_range(std::int64_t first, std::int64_t last)
{
    constexpr std::int64_t exact = std::int64_t{1} << 53;  // integers beyond are not all doubles
    if (first > last || first < -exact || last > exact)
        throw std::invalid_argument("qkov: an integer range needs first <= last, both within +-2^53");
}

// Splits pending[index] in two halves, replacing it by the first and appending the second.
template <class F>
constexpr void split_block(F& f, std::vector<integer_block>& pending, std::size_t index)
{
    const integer_block b = pending[index];
    const std::int64_t middle = b.first + (b.last - b.first) / 2;
    pending[index] = evaluate_block(f, b.first, middle);
    pending.push_back(evaluate_block(f, middle + 1, b.last));
}
} // namespace detail

/// Encloses min_{first <= k <= last} f(k). Best first: the block with the smallest lower bound is
/// split until it is a single integer; then no other block can go below it. The upper bound is
/// the smallest upper bound of any block (the minimum is at most f anywhere).
template <class F, native_integer First, native_integer Last>
constexpr certified certified_minimum(F f, First first_in, Last last_in, int max_evaluations = 20000)
{
    const std::int64_t first = detail::range_end(first_in), last = detail::range_end(last_in);
    detail::check_range(first, last);
    std::vector<detail::integer_block> pending{detail::evaluate_block(f, first, last)};
    for (int evaluations = 1; evaluations + 2 <= max_evaluations; evaluations += 2) {
        std::size_t lowest = 0;
        for (std::size_t i = 1; i < pending.size(); ++i)
            if (pending[i].value.lo() < pending[lowest].value.lo()) lowest = i;
        if (pending[lowest].size() == 1) break;
        detail::split_block(f, pending, lowest);
    }
    double lower = pending[0].value.lo(), upper = pending[0].value.hi();
    for (const auto& b : pending) {
        lower = b.value.lo() < lower ? b.value.lo() : lower;
        upper = b.value.hi() < upper ? b.value.hi() : upper;
    }
    return certified(lower, upper);
}

/// Encloses sum_{first <= k <= last} f(k), each block counted as (its size) x (its enclosure).
/// The block whose share of the width is largest is split until the enclosure's width is at
/// most relative_width times its lower bound (or every block is a single integer). Only the
/// final sum is certified; when to stop splitting is decided on plain double estimates, which
/// cost a fraction of interval sums and cannot make the result wrong, only wider or tighter.
template <class F, native_integer First, native_integer Last>
constexpr certified certified_sum(F f, First first_in, Last last_in, double relative_width, int max_evaluations = 20000)
{
    const std::int64_t first = detail::range_end(first_in), last = detail::range_end(last_in);
    detail::check_range(first, last);
    std::vector<detail::integer_block> pending{detail::evaluate_block(f, first, last)};
    auto estimate = [](const detail::integer_block& b, bool upper) {
        return static_cast<double>(b.size()) * (upper ? b.value.hi() : b.value.lo());
    };
    double estimated_lo = estimate(pending[0], false), estimated_hi = estimate(pending[0], true);
    for (int evaluations = 1; evaluations + 2 <= max_evaluations; evaluations += 2) {
        if (estimated_hi - estimated_lo <= relative_width * (estimated_lo < 0 ? -estimated_lo : estimated_lo)) break;
        std::size_t widest = pending.size();
        double widest_share = -1.0;
        for (std::size_t i = 0; i < pending.size(); ++i) {
            const double share = estimate(pending[i], true) - estimate(pending[i], false);
            if (pending[i].size() > 1 && share > widest_share) {
                widest = i;
                widest_share = share;
            }
        }
        if (widest == pending.size()) break;  // every block is one integer: as tight as f allows
        estimated_lo -= estimate(pending[widest], false);
        estimated_hi -= estimate(pending[widest], true);
        detail::split_block(f, pending, widest);
        for (const std::size_t i : {widest, pending.size() - 1}) {
            estimated_lo += estimate(pending[i], false);
            estimated_hi += estimate(pending[i], true);
        }
    }
    interval sum(0.0);
    for (const auto& b : pending) sum += interval(b.size()) * b.value;
    return certified(sum);
}

} // namespace qkov
