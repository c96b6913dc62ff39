// A dimension copy head (seed 002, Exercise 1): an OV circuit that copies chosen residual
// dimensions to other residual dimensions. W_V reads dimension from[k] into head channel k, and
// W_out writes channel k to dimension to[k], so W_out W_V has a 1 at (to[k], from[k]) for each k.
// Not the "copy head" of R14 and K2 (experiments/copy_head_experiment.hpp), whose OV is an
// orthogonal projection U U^T that, with a tied unembedding, copies the token itself.
#pragma once

#include <array>
#include <cstddef>
#include <stdexcept>

#include "qkov/circuits/qk_ov.hpp"

namespace qkov {

template <class T, std::size_t D, std::size_t d>
constexpr ov_factors<T, D, d> dimension_copy_head(const std::array<std::size_t, d>& from, const std::array<std::size_t, d>& to)
{
    ov_factors<T, D, d> head;
    for (std::size_t k = 0; k < d; ++k) {
        if (from[k] >= D || to[k] >= D) throw std::out_of_range("qkov: dimension_copy_head dimension outside the residual stream");
        head.w_v(k, from[k]) = T(1);
        head.w_out(to[k], k) = T(1);
    }
    return head;
}

} // namespace qkov
