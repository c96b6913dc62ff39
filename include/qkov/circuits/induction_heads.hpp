// The heads of seed 002's two induction circuits, generic over the scalar: the same functions
// feed the symbolic proof of T6 and the T6 and T7 experiments (instantiated with double).
//   T6 (Exercise 2, pointer arithmetic, positions in the residual stream):
//     content_match_head   head 1: matches content, pushed away from its own position;
//     block_copy_head      its OV: writes the attended token's position block elsewhere;
//     position_shift_head  head 2: a stored position rotated by `shift` against each key's
//                          position (shift -1: previous token, +1: the token after, 0: itself).
//   T7 (Exercise 3, K-composition): seed 001's previous_token_head (positional_heads.hpp) with
//     block_copy_head as layer 1, then previous_content_match_head as layer 2.
// Every reader is coordinate_reader: W(i, offset + i) = 1 reads a block of d coordinates.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "qkov/circuits/dimension_copy_head.hpp"
#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/matrix/blocks.hpp"
#include "qkov/matrix/matrix.hpp"

namespace qkov {

/// The dimension_copy_head that copies the block of d coordinates from_offset .. from_offset + d - 1
/// to to_offset .. to_offset + d - 1.
template <class T, std::size_t D, std::size_t d>
constexpr ov_factors<T, D, d> block_copy_head(std::size_t from_offset, std::size_t to_offset)
{
    std::array<std::size_t, d> from{}, to{};
    for (std::size_t c = 0; c < d; ++c) from[c] = from_offset + c, to[c] = to_offset + c;
    return dimension_copy_head<T, D, d>(from, to);
}

/// W_Q = beta R_shift (reads query_offset ..), W_K reads key_offset ..: with sinusoidal positions
/// p_n in both blocks, R_shift p_n = p_{n + shift} (T6), so the head asks for the key whose
/// position is the stored one plus shift.
template <rope_layout L, std::size_t D, angle_provider Angles>
constexpr qk_factors<typename Angles::scalar, L.d, D> position_shift_head(const Angles& angles, std::int64_t shift,
                                                                           const typename Angles::scalar& beta,
                                                                           std::size_t query_offset, std::size_t key_offset)
{
    using T = typename Angles::scalar;
    qk_factors<T, L.d, D> head;
    head.w_k = coordinate_reader<T, L.d, D>(0, key_offset);
    head.w_q = beta * (rope_rotation<T, L>::at(angles, shift) * coordinate_reader<T, L.d, D>(0, query_offset));
    return head;
}

/// T6's head 1 (Exercise 2(d), (e)), 2d channels: W_Q = (beta_c C ; -beta_p P), W_K = (C ; P)
/// with C and P the readers of the content and position blocks, so the score is
/// beta_c <content, content> - beta_p <position, position>: similar content, far from itself.
template <class T, std::size_t d, std::size_t D>
constexpr qk_factors<T, 2 * d, D> content_match_head(const T& beta_content, const T& beta_position, std::size_t content_offset,
                                                     std::size_t position_offset)
{
    const auto content = coordinate_reader<T, d, D>(0, content_offset), position = coordinate_reader<T, d, D>(0, position_offset);
    qk_factors<T, 2 * d, D> head;
    head.w_q = vstack(beta_content * content, (-beta_position) * position);
    head.w_k = vstack(content, position);
    return head;
}

/// T7's head 2 (Exercise 3): W_Q = beta times the reader of the current content, W_K the reader
/// of the previous token's content (written by layer 1), both from coordinate d0 of the block on
/// (d0 > 0 keeps only the slow RoPE pairs, seed 000's semantic trick).
template <class T, std::size_t d, std::size_t D>
constexpr qk_factors<T, d, D> previous_content_match_head(const T& beta, std::size_t d0, std::size_t content_offset,
                                                          std::size_t previous_offset)
{
    qk_factors<T, d, D> head;
    head.w_q = beta * coordinate_reader<T, d, D>(d0, content_offset);
    head.w_k = coordinate_reader<T, d, D>(d0, previous_offset);
    return head;
}

} // namespace qkov
