// What angle providers built from a user's files share: they know cos and sin of position * theta_l
// only at the positions 0 .. positions-1 that the file holds. Negative positions follow by
// symmetry (cos(-a) = cos(a), sin(-a) = -sin(a)); positions beyond the file are an error naming
// it; the angle is atan2(sin, cos), so it is known modulo 2 pi (wrapped_angles tells the audit).
// Derived supplies cos_sin_at(l, p) for 0 <= p < positions.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "qkov/io/npy.hpp"

namespace qkov::precision {

template <class Derived>
class observed_angles {
public:
    using scalar = double;
    static constexpr bool wrapped_angles = true;

    [[nodiscard]] std::int64_t positions() const { return static_cast<std::int64_t>(positions_); }

    [[nodiscard]] std::pair<double, double> cos_sin(std::size_t l, std::int64_t position) const
    {
        const auto p = static_cast<std::size_t>(position < 0 ? -position : position);
        if (p >= positions_)
            throw io::npy_error(path_, "the file has " + std::to_string(positions_) + " positions; position " + std::to_string(p) +
                                           " was asked for");
        const auto [c, s] = static_cast<const Derived&>(*this).cos_sin_at(l, p);
        return {c, position < 0 ? -s : s};
    }
    [[nodiscard]] double angle(std::size_t l, std::int64_t position) const
    {
        const auto [c, s] = cos_sin(l, position);
        return std::atan2(s, c);
    }

protected:
    observed_angles(std::string path, std::size_t positions) : path_(std::move(path)), positions_(positions) {}

private:
    std::string path_;
    std::size_t positions_;
};

} // namespace qkov::precision
