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
#include "qkov/precision/observed_angles.hpp"

namespace qkov::precision {

class table_angles : public observed_angles<table_angles> {
public:
    table_angles(const io::npy_array& table, const rope_layout& layout)
        : observed_angles(table.path, checked_positions(table, layout)), table_(&table), layout_(layout)
    {
        per_coordinate_ = table.shape[2] == layout.rotary_dim && table.shape[2] != layout.pairs();
        width_ = table.shape[2];
    }

    /// cos and sin of pair l at position p (0 <= p < positions), from the pair's first column.
    [[nodiscard]] std::pair<double, double> cos_sin_at(std::size_t l, std::size_t p) const
    {
        const std::size_t column = per_coordinate_ ? layout_.first(l) : l;
        const auto n = static_cast<std::size_t>(positions());
        return {table_->values[p * width_ + column], table_->values[(n + p) * width_ + column]};
    }

private:
    static std::size_t checked_positions(const io::npy_array& table, const rope_layout& layout)
    {
        const auto& shape = table.shape;
        const std::size_t pairs = layout.pairs();
        if (shape.size() != 3 || shape[0] != 2 || (shape[2] != pairs && shape[2] != layout.rotary_dim))
            throw io::npy_error(table.path, "a cos/sin table must have shape (2, positions, " + std::to_string(pairs) + ") or (2, positions, " +
                                                std::to_string(layout.rotary_dim) + ") for rotary_dim " +
                                                std::to_string(layout.rotary_dim) + "; found " + table.shape_string());
        return shape[1];
    }

    const io::npy_array* table_;
    rope_layout layout_;
    bool per_coordinate_ = false;
    std::size_t width_ = 0;
};

} // namespace qkov::precision
