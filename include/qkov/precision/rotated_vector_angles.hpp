// A user's rotated vectors as a RoPE angle provider, so the audit can measure an implementation
// it can only observe through its output: rows y_p = R_p x of a (positions, d) .npy and the
// unrotated x of a (d,) .npy. Pair l = coordinates (i, j) of the layout turns (x_i, x_j) by the
// angle whose cosine and sine are recovered as
//   cos = (x_i y_i + x_j y_j) / (x_i^2 + x_j^2),   sin = (x_i y_j - x_j y_i) / (x_i^2 + x_j^2),
// exact when (y_i, y_j) = [[cos, -sin], [sin, cos]] (x_i, x_j). A pair of x that is zero reveals
// nothing about its rotation, and is refused.
//
// Both pairs are first scaled by the same power of two (exact) so that the larger |x| of the pair
// is in [1, 2): x_i^2 + x_j^2 then neither underflows (inputs near 1e-161 gave errors of about 1)
// nor overflows (inputs near 1e160 gave inf), and the ratios above are unchanged.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "qkov/circuits/rope.hpp"
#include "qkov/io/npy.hpp"
#include "qkov/precision/observed_angles.hpp"

namespace qkov::precision {

class rotated_vector_angles : public observed_angles<rotated_vector_angles> {
public:
    rotated_vector_angles(const io::npy_array& rotated, const io::npy_array& input, const rope_layout& layout)
        : observed_angles(rotated.path, checked_positions(rotated, input, layout)), rotated_(&rotated), input_(&input), layout_(layout)
    {
    }

    /// cos and sin of pair l at position p (0 <= p < positions), recovered from y_p and x.
    [[nodiscard]] std::pair<double, double> cos_sin_at(std::size_t l, std::size_t p) const
    {
        const std::size_t i = layout_.first(l), j = layout_.second(l);
        const int shift = -std::ilogb(std::max(std::fabs(input_->values[i]), std::fabs(input_->values[j])));
        const double xi = std::scalbn(input_->values[i], shift), xj = std::scalbn(input_->values[j], shift);
        const double yi = std::scalbn(rotated_->values[p * layout_.d + i], shift), yj = std::scalbn(rotated_->values[p * layout_.d + j], shift);
        const double norm = xi * xi + xj * xj;
        return {(xi * yi + xj * yj) / norm, (xi * yj - xj * yi) / norm};
    }

private:
    static std::size_t checked_positions(const io::npy_array& rotated, const io::npy_array& input, const rope_layout& layout)
    {
        io::require_shape(input, {layout.d}, "the unrotated input vector");
        if (rotated.shape.size() != 2 || rotated.shape[1] != layout.d)
            throw io::npy_error(rotated.path, "rotated vectors must have shape (positions, " + std::to_string(layout.d) +
                                                  "); found " + rotated.shape_string());
        for (std::size_t l = 0; l < layout.pairs(); ++l) {
            const double xi = input.values[layout.first(l)], xj = input.values[layout.second(l)];
            if (xi == 0 && xj == 0)
                throw io::npy_error(input.path, "pair " + std::to_string(l) + " (coordinates " + std::to_string(layout.first(l)) +
                                                    ", " + std::to_string(layout.second(l)) +
                                                    ") of the input vector is zero: its rotation cannot be recovered");
        }
        return rotated.shape[0];
    }

    const io::npy_array* rotated_;
    const io::npy_array* input_;
    rope_layout layout_;
};

} // namespace qkov::precision
