// A RoPE angle provider with cos and sin tabulated for a range of positions.
//
// numeric_angles (circuits/rope_numeric_angles.hpp) evaluates cos and sin at every call; a run that rotates many
// batches at the same positions (several heads, queries and keys) can evaluate them once. This
// provider has the same interface (theta, cos_sin(l, position)) and takes its values from any
// such provider, so the schedule is still defined once; positions outside the table are evaluated
// by the underlying provider.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "qkov/circuits/rope_angle_provider.hpp"

namespace qkov::numeric {

template <angle_schedule_provider Angles>
class tabulated_angles {
public:
    using scalar = typename Angles::scalar;

    /// Tabulates positions first_position .. first_position + count - 1.
    tabulated_angles(Angles angles, std::int64_t first_position, std::size_t count)
        : theta(angles.theta), source_(std::move(angles)), first_(first_position), count_(checked_count(first_position, count, theta.size())),
          values_(count * theta.size())
    {
        // Positions counted in unsigned arithmetic: checked_count has ruled out passing 2^63 - 1, but
        // where it is not inlined g++ -O2 cannot see that and warns that first_ + t may overflow.
        for (std::size_t t = 0; t < count_; ++t)
            for (std::size_t l = 0; l < theta.size(); ++l)
                values_[t * theta.size() + l] = source_.cos_sin(l, std::int64_t(std::uint64_t(first_) + t));
    }

    std::pair<scalar, scalar> cos_sin(std::size_t l, std::int64_t position) const
    {
        // Compared without subtracting first: position - first_ overflows at extreme positions.
        if (position < first_ || std::uint64_t(position) - std::uint64_t(first_) >= count_) return source_.cos_sin(l, position);
        return values_[std::size_t(std::uint64_t(position) - std::uint64_t(first_)) * theta.size() + l];
    }

    decltype(Angles::theta) theta;  ///< the schedule, as the underlying provider's

private:
    /// count, once the table's size and its last position are known to fit.
    static std::size_t checked_count(std::int64_t first, std::size_t count, std::size_t pairs)
    {
        if (pairs != 0 && count > std::size_t(-1) / sizeof(std::pair<scalar, scalar>) / pairs)
            throw std::length_error("qkov: tabulated_angles: " + std::to_string(count) + " positions x " + std::to_string(pairs) +
                                    " pairs is more than memory can address");
        if (count > 0 && std::uint64_t(count - 1) > std::uint64_t(INT64_MAX - first))
            throw std::invalid_argument("qkov: tabulated_angles: positions " + std::to_string(first) + " + " + std::to_string(count) +
                                        " pass the largest position 2^63 - 1");
        return count;
    }

    Angles source_;
    std::int64_t first_;
    std::size_t count_;
    std::vector<std::pair<scalar, scalar>> values_;
};

} // namespace qkov::numeric
