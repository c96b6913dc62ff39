// The RoPE statements of claims R2 and R3, shared by their proofs, false twins and the
// compile-time benchmark (bench/symbolic), so that all of them check the same code.
#pragma once

#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/matrix/symbolic_entries.hpp"
#include "qkov/scalar/trig_poly.hpp"

namespace {
using namespace qkov;
using P = trig_poly<>;

/// R_m^T R_n == R_{n - sign_of_m * m}: the claim with sign_of_m = 1 (false twins vary it).
template <rope_layout L>
constexpr bool relative_position_blocks(std::int32_t sign_of_m = 1)
{
    using R = rope_rotation<P, L>;
    const symbolic_angles<P> angles;
    const auto m = position(0), n = position(1);
    return transpose(R::at(angles, m)) * R::at(angles, n) == R::at(angles, n - sign_of_m * m);
}

/// The same with the dense d x d matrices and the plain matrix product.
template <rope_layout L>
constexpr bool relative_position_dense()
{
    using R = rope_rotation<P, L>;
    const symbolic_angles<P> angles;
    const auto m = position(0), n = position(1);
    return transpose(R::at(angles, m).dense()) * R::at(angles, n).dense() == R::at(angles, n - m).dense();
}

/// The residual width of the previous-token head in R3 (its W_k reads coordinate 0 only).
constexpr std::size_t previous_token_width = 8;

/// A token of the residual stream: x_0 = 1, the other entries real symbols first_id, first_id + 1, ...
template <class T>
constexpr matrix<T, previous_token_width, 1> token_with_constant(std::uint16_t first_id)
{
    auto x = symbolic_entries<T, previous_token_width, 1>(first_id);
    x(0, 0) = T(1);
    return x;
}

/// q_{n+1}^T k_n == multiple * alpha: the claim with multiple = d/2.
template <std::size_t d>
constexpr bool previous_token_score_is(int multiple)
{
    constexpr rope_layout L = interleaved_layout(d);
    const symbolic_angles<P> angles;
    const auto n = position(1);
    const P alpha = P::variable(0);
    const auto head = previous_token_head<L, previous_token_width>(angles, alpha);
    // Query and key tokens are different: different free entries.
    const P score = rotary_score<L>(angles, head.w_q, token_with_constant<P>(10), n + 1, head.w_k, token_with_constant<P>(20), n);
    return score == P(multiple) * alpha;
}

} // namespace
