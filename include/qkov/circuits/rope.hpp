// Rotary position embeddings (RoPE), once, for every scalar type.
//
// R_m (seed 001) is block-diagonal: pair l of the rotated coordinates turns by the angle
// m theta_l, the coordinates beyond rotary_dim are left alone. A rope_layout says which two
// coordinates form pair l:
//   interleaved (the seeds, GPT-J):            (2l, 2l + 1)
//   rotate_half (Hugging Face Llama, GPT-NeoX): (l, l + rotary_dim / 2)
// rope_rotation keeps the d/2 blocks as 2 x 2 matrices and multiplies block by block, so a
// d x d rotation costs d/2 small products, never a dense d x d one. dense() builds the full
// matrix, to check the block route against the plain matrix product at small sizes.
//
// Where cos(m theta_l) and sin(m theta_l) come from is the angle provider's business:
//   symbolic_angles    trig_poly: symbolic positions, independent symbolic angles (proofs for all m, n, theta)
//   rational_angles    exact rotations whose cosines are rational (Pythagorean triples)
//   numeric_angles     double, float, Boost.Multiprecision: a theta schedule evaluated with cos/sin
#pragma once

#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "qkov/matrix/matrix.hpp"
#include "qkov/matrix/value_array.hpp"
#include "qkov/scalar/gaussian.hpp"
#include "qkov/scalar/native_integer.hpp"

namespace qkov {

enum class rope_pairing { interleaved, rotate_half };

struct rope_layout {
    std::size_t d;           ///< head width
    std::size_t rotary_dim;  ///< the leading coordinates that rotate (even, <= d); the rest pass through
    rope_pairing pairing;

    [[nodiscard]] constexpr std::size_t pairs() const { return rotary_dim / 2; }
    /// The two coordinates of pair l.
    [[nodiscard]] constexpr std::size_t first(std::size_t l) const { return pairing == rope_pairing::interleaved ? 2 * l : l; }
    [[nodiscard]] constexpr std::size_t second(std::size_t l) const
    {
        return pairing == rope_pairing::interleaved ? 2 * l + 1 : l + rotary_dim / 2;
    }
    friend constexpr bool operator==(const rope_layout&, const rope_layout&) = default;
};

/// The full-width layout of the seeds: every coordinate rotates, pairs interleaved.
/// d is an integer of any type (a double 8.5 is no head width and matches no overload).
template <native_integer N>
constexpr rope_layout interleaved_layout(N d)
{
    return {index_value(d), index_value(d), rope_pairing::interleaved};
}

/// A block-diagonal matrix in a RoPE layout: one 2 x 2 block per pair, identity beyond rotary_dim.
template <class T, rope_layout L>
class rope_rotation {
    static_assert(L.d % 2 == 0 && L.rotary_dim % 2 == 0 && L.rotary_dim > 0 && L.rotary_dim <= L.d,
                  "qkov: a RoPE layout needs an even head width d and an even rotary_dim with 0 < rotary_dim <= d");

public:
    using block = matrix<T, 2, 2>;
    static constexpr rope_layout layout = L;
    static constexpr std::size_t pairs = L.rotary_dim / 2;

    /// The identity.
    constexpr rope_rotation()
    {
        for (auto& b : blocks_) b = block::identity();
    }

    /// R_position: block l is [[cos, -sin], [sin, cos]] of position * theta_l, from the angle provider.
    template <class Angles, class Position>
    static constexpr rope_rotation at(const Angles& angles, const Position& position)
    {
        rope_rotation r(uninitialized_blocks{});
        for (std::size_t l = 0; l < pairs; ++l) {
            const auto [c, s] = angles.cos_sin(l, position);
            block& b = r.blocks_[l];
            b(0, 0) = c;
            b(0, 1) = -s;
            b(1, 0) = s;
            b(1, 1) = c;
        }
        return r;
    }

    [[nodiscard]] constexpr const block& block_at(std::size_t l) const { return blocks_[l]; }

    friend constexpr rope_rotation operator*(const rope_rotation& a, const rope_rotation& b)
    {
        rope_rotation r(uninitialized_blocks{});
        for (std::size_t l = 0; l < pairs; ++l) r.blocks_[l] = a.blocks_[l] * b.blocks_[l];
        return r;
    }

    /// R x for a d x C matrix x: each pair of rows mixes through its block.
    template <std::size_t C>
    friend constexpr matrix<T, L.d, C> operator*(const rope_rotation& r, const matrix<T, L.d, C>& x)
    {
        matrix<T, L.d, C> y = x;
        for (std::size_t l = 0; l < pairs; ++l) {
            const std::size_t i = L.first(l), j = L.second(l);
            const block& b = r.blocks_[l];
            for (std::size_t c = 0; c < C; ++c) {
                y(i, c) = b(0, 0) * x(i, c) + b(0, 1) * x(j, c);
                y(j, c) = b(1, 0) * x(i, c) + b(1, 1) * x(j, c);
            }
        }
        return y;
    }

    friend constexpr rope_rotation transpose(const rope_rotation& a)
    {
        rope_rotation r(uninitialized_blocks{});
        for (std::size_t l = 0; l < pairs; ++l) r.blocks_[l] = qkov::transpose(a.blocks_[l]);
        return r;
    }

    friend constexpr bool operator==(const rope_rotation& a, const rope_rotation& b)
    {
        for (std::size_t l = 0; l < pairs; ++l)
            if (!(a.blocks_[l] == b.blocks_[l])) return false;
        return true;
    }

    /// The full d x d matrix, with each block placed on its pair's coordinates.
    [[nodiscard]] constexpr matrix<T, L.d, L.d> dense() const
    {
        auto m = matrix<T, L.d, L.d>::identity();
        for (std::size_t l = 0; l < pairs; ++l) {
            const std::size_t i = L.first(l), j = L.second(l);
            m(i, i) = blocks_[l](0, 0);
            m(i, j) = blocks_[l](0, 1);
            m(j, i) = blocks_[l](1, 0);
            m(j, j) = blocks_[l](1, 1);
        }
        return m;
    }

private:
    // Zero blocks, every one overwritten by the caller: skips building identities (for symbolic
    // scalars each 1 is an allocation).
    struct uninitialized_blocks {};
    constexpr explicit rope_rotation(uninitialized_blocks) {}

    value_array<block, pairs> blocks_;
};

/// The RoPE attention score of a query token at position m against a key token at position n:
/// q_m^T k_n = (R_m W_q x_q)^T (R_n W_k x_k) (seed 001, column vectors).
template <rope_layout L, class Angles, class T, std::size_t D, class Position>
constexpr T rotary_score(const Angles& angles, const matrix<T, L.d, D>& w_q, const matrix<T, D, 1>& x_q, const Position& m,
                         const matrix<T, L.d, D>& w_k, const matrix<T, D, 1>& x_k, const Position& n)
{
    using R = rope_rotation<T, L>;
    const auto q = R::at(angles, m) * (w_q * x_q);
    const auto k = R::at(angles, n) * (w_k * x_k);
    return (transpose(q) * k)(0, 0);
}

/// What a symbolic position may be: a linear form in the position symbols, or a native integer
/// (range-checked into the form's 32-bit constant). Not a floating-point number: R_{2.5} is not R_2.
template <class Position, class Form>
concept symbolic_position = std::same_as<Position, Form> || native_integer<Position>;

/// Symbolic angles: pair l turns by the independent symbolic angle theta_l; positions are
/// integer linear forms (position(0) = m, position(1) = n, ...).
template <class P>
struct symbolic_angles {
    using scalar = P;
    template <class Position>
        requires symbolic_position<Position, typename P::form>
    constexpr std::pair<P, P> cos_sin(std::size_t l, const Position& position) const
    {
        // The pair index is the angle id: beyond 65535 it is refused (angle_id_out_of_range), so
        // two pairs never share an angle.
        const typename P::form exponent(position);
        return {P::cos(l, exponent), P::sin(l, exponent)};
    }
};

/// What an exact position may be: a native integer of any width (its exact value is used).
template <class Position>
concept integer_position = native_integer<Position>;

/// Exact rotations: pair l turns by the angle whose cosine and sine are the rational numbers
/// ((a^2 - b^2), 2ab) / (a^2 + b^2) of a Pythagorean triple; R_m uses its m-th power, exactly.
template <class Q, std::size_t Pairs>
struct rational_angles {
    using scalar = Q;
    std::array<std::pair<std::int64_t, std::int64_t>, Pairs> generators;  ///< (a, b) per pair

    template <class Position>
        requires integer_position<Position>
    constexpr std::pair<Q, Q> cos_sin(std::size_t l, const Position& position) const
    {
        // In Q (checked): a^2 + b^2 of 64-bit generators would overflow int64 silently.
        const Q a(generators[l].first), b(generators[l].second);
        const Q norm = a * a + b * b;
        gaussian<Q> base((a * a - b * b) / norm, (Q(2) * a * b) / norm);
        const bool negative = is_negative(position);
        if (negative) base = base.conj();  // unit modulus: the inverse is the conjugate
        // The magnitude in unsigned __int128, which holds |position| of every native integer exactly.
        unsigned __int128 k = negative ? static_cast<unsigned __int128>(0) - static_cast<unsigned __int128>(position)
                                       : static_cast<unsigned __int128>(position);
        gaussian<Q> power(Q(1));
        for (; k > 0; k >>= 1) {  // square and multiply
            if (k & 1) power = power * base;
            base = base * base;
        }
        return {power.real(), power.imag()};
    }
};

/// How numeric_angles evaluates the cosine and sine of one angle: separately, by default. A
/// scalar with a joint routine that shares the argument reduction (MPFR's mpfr_sin_cos, see
/// precision/mpfr.hpp) specializes this; the specialization must be visible wherever
/// numeric_angles is used with that scalar.
template <class T>
struct joint_cos_sin {
    static constexpr bool available = false;
};

/// Numeric angles from a theta schedule, for double, float, certified intervals or
/// Boost.Multiprecision numbers (cos, sin and pow are found by argument-dependent lookup):
/// cos(position * theta_l) and sin(position * theta_l), evaluated in T. The position is an
/// integer, or any T: with certified intervals, an interval of positions [a, b] gives
/// enclosures valid for every position in it (how bounds cover a whole window at once).
template <class T, std::size_t Pairs>
struct numeric_angles {
    using scalar = T;
    std::array<T, Pairs> theta;

    /// position * theta_l, rounded as T rounds (what precision audits compare). The position is
    /// an integer or any T (an interval of positions, for certified bounds over a window).
    template <class Position>
    constexpr T angle(std::size_t l, const Position& position) const
    {
        return T(position) * theta[l];
    }

    template <class Position>
    constexpr std::pair<T, T> cos_sin(std::size_t l, const Position& position) const
    {
        using std::cos;
        using std::sin;
        const T a = angle(l, position);
        if constexpr (joint_cos_sin<T>::available)
            return joint_cos_sin<T>::evaluate(a);
        else
            return {cos(a), sin(a)};
    }

    /// cos(position * theta_l) alone, for sums of cosines (half the work of cos_sin).
    template <class Position>
    constexpr T cosine(std::size_t l, const Position& position) const
    {
        using std::cos;
        return cos(angle(l, position));
    }
};

/// The exponent of the standard schedule, theta_l = base^(standard_exponent): -2l / rotary_dim,
/// l = 0 .. rotary_dim/2 - 1 (seed 001 writes base^(-2(l-1)/d) with 1-based l; Hugging Face
/// computes inv_freq the same way). Separate so that exact scalars can check it (R9).
template <class T, native_integer Pair, native_integer Pairs>
constexpr T standard_exponent(Pair l_in, Pairs pairs_in)
{
    const std::size_t l = index_value(l_in), pairs = index_value(pairs_in);  // integers, never cut from a double
    return -T(2 * l) / T(2 * pairs);
}

/// theta_l = base^(-2l / rotary_dim). constexpr for scalars whose pow is (certified intervals);
/// for double it runs at run time. The base goes straight into T (not through a double
/// parameter), so a certified interval encloses a long double base rather than a narrowed one.
template <class T, std::size_t Pairs, class Base>
    requires std::constructible_from<T, Base>
constexpr std::array<T, Pairs> standard_theta(const Base& base)
{
    using std::pow;
    std::array<T, Pairs> theta{};
    for (std::size_t l = 0; l < Pairs; ++l) theta[l] = pow(T(base), standard_exponent<T>(l, Pairs));
    return theta;
}

/// The exponent of seed 001's variant theta_i = 10^(-4 * 2(i-1) / (d-2)), 1-based i: here
/// l = i - 1 and d = 2 pairs, so the exponent is -8l / (2 pairs - 2).
template <class T, native_integer Pair, native_integer Pairs>
constexpr T seed_variant_exponent(Pair l_in, Pairs pairs_in)
{
    const std::size_t l = index_value(l_in), pairs = index_value(pairs_in);
    return -T(8 * l) / T(2 * pairs - 2);
}

/// The seed's variant schedule theta_l = 10^(seed_variant_exponent). Its last angle is exactly
/// 10^-4; the standard schedule's last angle is 10000^(-(d-2)/d) (R9).
template <class T, std::size_t Pairs>
constexpr std::array<T, Pairs> seed_variant_theta()
{
    static_assert(Pairs >= 2, "qkov: the seed's variant schedule divides by d - 2");
    using std::pow;
    std::array<T, Pairs> theta{};
    for (std::size_t l = 0; l < Pairs; ++l) theta[l] = pow(T(10), seed_variant_exponent<T>(l, Pairs));
    return theta;
}

} // namespace qkov
