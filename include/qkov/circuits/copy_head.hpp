// A head whose OV circuit copies chosen residual dimensions to other residual dimensions
// (seed 002, Exercise 1): W_V reads dimension from[k] into head channel k, and W_out writes
// channel k to dimension to[k], so W_out W_V has a 1 at (to[k], from[k]) for each k.
#pragma once

#include <array>
#include <cstddef>
#include <stdexcept>

#include "qkov/matrix/matrix.hpp"

namespace qkov {

template <class T, std::size_t D, std::size_t d>
struct ov_factors {
    matrix<T, d, D> w_v;    ///< reads:  d x D
    matrix<T, D, d> w_out;  ///< writes: D x d
};

template <class T, std::size_t D, std::size_t d>
constexpr ov_factors<T, D, d> copy_head(const std::array<std::size_t, d>& from, const std::array<std::size_t, d>& to)
{
    ov_factors<T, D, d> head;
    for (std::size_t k = 0; k < d; ++k) {
        if (from[k] >= D || to[k] >= D) throw std::out_of_range("qkov: copy_head dimension outside the residual stream");
        head.w_v(k, from[k]) = T(1);
        head.w_out(to[k], k) = T(1);
    }
    return head;
}

} // namespace qkov
