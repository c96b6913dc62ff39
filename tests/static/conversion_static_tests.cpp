// The true twins of tests/compile_fail's conversion cases: the same entry points, given numbers
// they represent exactly (wide integer types with in-range values, a double's exact value through
// from_double, enclosures that decide), must accept them and prove the true statements. Built in
// both -std=c++20 and -std=gnu++20 (where __int128 is, or is not, std::integral).
#include <cstdint>
#include <limits>

#include "qkov/circuits/hard_attention.hpp"
#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/matrix/symbolic_entries.hpp"
#include "qkov/scalar/certified.hpp"
#include "qkov/scalar/integer_range_bounds.hpp"
#include "qkov/scalar/interval.hpp"
#include "qkov/scalar/rational.hpp"
#include "qkov/scalar/trig_poly.hpp"

namespace {

using P = qkov::trig_poly<>;
using R = qkov::rope_rotation<P, qkov::interleaved_layout(4)>;
using Q = qkov::rational<qkov::checked_int128>;

// Positions of 64-bit and unsigned types within the linear form's range keep their value:
// R_{2^13} R_{2^13} = R_{2^14 - 1} R_1 (twin of "R_{2^32} = I"; products keep exponents below 2^15).
static_assert([] {
    const qkov::symbolic_angles<P> angles;
    const std::int64_t k = std::int64_t{1} << 13;
    return R::at(angles, k) * R::at(angles, k) == R::at(angles, std::uint64_t{(1u << 14) - 1}) * R::at(angles, 1);
}());

// R_{m + 2^14} = R_m R_{2^14} with a 64-bit offset (twin of "R_{m + 2^32} = R_m").
static_assert([] {
    const qkov::symbolic_angles<P> angles;
    const auto m = qkov::position(0);
    const std::int64_t k = std::int64_t{1} << 14;
    return R::at(angles, m + k) == R::at(angles, m) * R::at(angles, k);
}());

// The previous-token profile at a 64-bit offset 0 is d/2 (twin of the offset -2^32 case).
static_assert([] {
    constexpr auto L = qkov::interleaved_layout(4);
    const qkov::symbolic_angles<P> angles;
    const P alpha = P::variable(0);
    return alpha * qkov::previous_token_profile<L>(angles, std::int64_t{0}) == P(L.d / 2) * alpha;
}());

// Integer positions of any width into exact Pythagorean rotations, uint64 and __int128 included
// (twin of R_{2.5}): R_3 R_{-3} = I.
static_assert([] {
    using RQ = qkov::rope_rotation<Q, qkov::interleaved_layout(2)>;
    const qkov::rational_angles<Q, 1> angles{{{{2, 1}}}};
    return RQ::at(angles, std::uint64_t{3}) * RQ::at(angles, static_cast<__int128>(-3)) == RQ();
}());

// A double's exact value enters through from_double: 1/2 + 1/2 = 1, alpha/2 + alpha/2 = alpha.
static_assert([] {
    const P half(qkov::dyadic_gaussian::from_double(0.5));
    const P alpha = P::variable(0);
    return half + half == P(1) && alpha * half + alpha * half == alpha;
}());
static_assert(qkov::dyadic_gaussian::from_double(0.375) == qkov::dyadic_gaussian(3, 0, 3));
static_assert(qkov::dyadic_gaussian::from_double(-1024.0) == qkov::dyadic_gaussian(-1024));
static_assert(qkov::dyadic_gaussian::from_double(std::numeric_limits<double>::denorm_min()) ==
              qkov::dyadic_gaussian(1, 0, 1074));

// Integer constants of every width that fit 64 bits keep their value.
static_assert([] {
    return P(std::uint64_t{std::numeric_limits<std::int64_t>::max()}) == P(std::numeric_limits<std::int64_t>::max()) &&
           P(static_cast<__int128>(-5)) == P(-5) && P(static_cast<unsigned char>(200)) == P(200);
}());

// Ids up to 65535 are distinct symbols and angles (twin of id 65536).
static_assert([] {
    const auto m = qkov::position(0);
    return P::variable(std::uint64_t{65535}) == P::variable(65535) && !(P::variable(65535) == P::variable(0)) &&
           !(P::cos(65535, m) == P::cos(0, m));
}());
static_assert([] { return qkov::symbolic_entries<P, 1, 2>(65534)(0, 1) == P::variable(65535); }());

// Wide numbers into intervals: enclosed, and decided where doubles can decide.
// 0.1L <= 0.1 as a double holds (twin of "0.1 <= 0.1L").
static_assert(qkov::certainly_less_equal(qkov::interval(0.1L), qkov::interval(0.1)) == qkov::certainty::holds);
static_assert(qkov::interval(0.1L).lo() < qkov::interval(0.1L).hi());
static_assert(qkov::interval(0.5L).lo() == 0.5 && qkov::interval(0.5L).hi() == 0.5);
// 2^60 < 2^60 + 2^12 with __int128 (twin of "2^60 + 1 <= 2^60"); 2^60 + 1 is enclosed, not rounded.
constexpr __int128 two_60 = static_cast<__int128>(1) << 60;
static_assert(qkov::certainly_less(qkov::interval(two_60), qkov::interval(two_60 + 4096)) == qkov::certainty::holds);
static_assert(qkov::interval(two_60).lo() == 0x1p60 && qkov::interval(two_60).hi() == 0x1p60);
static_assert(qkov::interval(two_60 + 1).lo() < 0x1p60 && qkov::interval(two_60 + 1).hi() > 0x1p60);
static_assert(qkov::interval(std::numeric_limits<std::uint64_t>::max()).lo() < 0x1p64);
static_assert(qkov::interval(std::numeric_limits<std::uint64_t>::max()).hi() >= 0x1p64);

// Thresholds of certified values: a long double threshold is enclosed (twin of "0.1 <= 0.1L").
static_assert(qkov::certified(0.1, 0.1).is_at_most(0.1) == qkov::certainty::holds);
static_assert(qkov::certified(0.1L, 0.1L).is_at_most(0.1) == qkov::certainty::holds);
static_assert(qkov::certified(0.2, 0.2).exceeds(0.1L) == qkov::certainty::holds);
// Unbounded certified values (twin of "[-1e400, -1e400] is at most -1e401"): -inf is a lower end.
static_assert(qkov::certified(-1e400L, -1e400L).is_at_most(-1e308) == qkov::certainty::holds);
static_assert(qkov::certified(-1e400L, -1e400L).is_at_most(-1e401L) == qkov::certainty::undecided);
static_assert(qkov::certified(-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::max())
                  .is_below(-1e308) == qkov::certainty::holds);
static_assert(qkov::certified().exceeds(0) == qkov::certainty::undecided);

// Integer range ends of any width: the smallest integer in [3, 10] is at least 3 (twin of the 2.5 end).
static_assert(qkov::certified_minimum([](const qkov::interval& k) { return k; }, std::uint64_t{3}, static_cast<__int128>(10))
                  .is_below(3) == qkov::certainty::fails);

// Integer lags, indices and dimensions of any type (twins of the lag 1.5 and index 0.5 cases).
static_assert(qkov::lagged_token_pattern<int, 4>(std::uint64_t{1}) == qkov::lagged_token_pattern<int, 4>(1));
static_assert(qkov::matrix<int, 2, 2>::identity()(std::uint64_t{1}, 1) == 1);
static_assert(qkov::interleaved_layout(std::uint64_t{8}) == qkov::interleaved_layout(8));
static_assert(qkov::standard_exponent<Q>(std::uint64_t{31}, static_cast<__int128>(32)) == Q(-31, 32));
} // namespace
