// False twin of R8 (certified part): the score at n - m = 710 is not below the score at n = m
// (710 rad is 1.8e-9 past 113 turns; it is below, by a certified margin).
// expect-error-gcc: static assertion failed: R8 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': R8 false twin
#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/scalar/interval.hpp"
#include "../certified_seed_setting.hpp"

namespace {
using namespace qkov;
using namespace qkov::seed_setting;
constexpr std::size_t D = 80;  // as in the proof
constexpr bool score_at_710_not_below()
{
    const auto w = coordinate_reader<interval, d, D>(0, 0);
    matrix<interval, D, 1> x;
    for (std::size_t l = 0; l < d / 2; ++l) x(2 * l, 0) = interval(1);
    return certainly_less_equal(rotary_score<L>(angles, w, x, 0, w, x, 0), rotary_score<L>(angles, w, x, 0, w, x, 710)) ==
           certainty::holds;
}
static_assert(score_at_710_not_below(), "R8 false twin: score at 710 >= score at 0");
}
