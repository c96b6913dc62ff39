// A user's cos/sin table (from a .npy file) as a RoPE angle provider, so the audit can measure
// it against the 100-digit reference like its built-in recipes.
//
// Accepted shapes, positions 0 .. P-1 along the second axis:
//   (2, P, rotary_dim / 2)  cos and sin per pair l
//   (2, P, rotary_dim)      cos and sin per coordinate, as Hugging Face caches them (rotate_half
//                           repeats the half: coordinates l and l + rotary_dim/2 hold pair l;
//                           interleaved repeats each entry: 2l and 2l + 1). The audit reads
//                           the entry at the pair's first coordinate.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "qkov/circuits/rope.hpp"
#include "qkov/io/npy.hpp"

namespace qkov::precision {

class table_angles {
public:
    using scalar = double;
    static constexpr bool wrapped_angles = true;  ///< angle() is atan2(sin, cos), in (-pi, pi]

    table_angles(const io::npy_array& table, const rope_layout& layout) : table_(&table), layout_(layout)
    {
        const auto& shape = table.shape;
        const std::size_t pairs = layout.pairs();
        if (shape.size() != 3 || shape[0] != 2 || (shape[2] != pairs && shape[2] != layout.rotary_dim))
            throw io::npy_error(table.path, "a cos/sin table must have shape (2, positions, " + std::to_string(pairs) + ") or (2, positions, " +
                                                std::to_string(layout.rotary_dim) + ") for rotary_dim " +
                                                std::to_string(layout.rotary_dim) + "; found " + table.shape_string());
        per_coordinate_ = shape[2] == layout.rotary_dim && shape[2] != pairs;
        positions_ = shape[1];
        width_ = shape[2];
    }

    [[nodiscard]] std::int64_t positions() const { return static_cast<std::int64_t>(positions_); }
    [[nodiscard]] bool per_coordinate() const { return per_coordinate_; }

    /// Entry (which = 0 cos, 1 sin) of column `column` at position |position|.
    [[nodiscard]] double entry(int which, std::int64_t position, std::size_t column) const
    {
        const auto p = static_cast<std::size_t>(position < 0 ? -position : position);
        if (p >= positions_)
            throw io::npy_error(table_->path, "the table has " + std::to_string(positions_) + " positions; position " +
                                                  std::to_string(p) + " was asked for");
        return table_->values[(static_cast<std::size_t>(which) * positions_ + p) * width_ + column];
    }

    /// The columns that hold pair l (one, or the pair's two coordinates).
    [[nodiscard]] std::pair<std::size_t, std::size_t> columns(std::size_t l) const
    {
        return per_coordinate_ ? std::pair{layout_.first(l), layout_.second(l)} : std::pair{l, l};
    }

    /// Negative positions by symmetry: cos(-a) = cos(a), sin(-a) = -sin(a).
    [[nodiscard]] std::pair<double, double> cos_sin(std::size_t l, std::int64_t position) const
    {
        const std::size_t column = columns(l).first;
        const double s = entry(1, position, column);
        return {entry(0, position, column), position < 0 ? -s : s};
    }
    [[nodiscard]] double angle(std::size_t l, std::int64_t position) const
    {
        const auto [c, s] = cos_sin(l, position);
        return std::atan2(s, c);
    }

private:
    const io::npy_array* table_;
    rope_layout layout_;
    bool per_coordinate_ = false;
    std::size_t positions_ = 0, width_ = 0;
};

} // namespace qkov::precision
