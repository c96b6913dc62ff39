// False: "2^60 + 1 <= 2^60". Under strict -std=c++20 an __int128 used to reach interval(double) and be
// rounded to 2^60 as if exact; it is now enclosed in the doubles around it, so the claim is undecided.
// expect-error-gcc: static assertion failed: 2^60 + 1 <= 2^60
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': 2^60 + 1 <= 2^60
#include "qkov/scalar/interval.hpp"
constexpr __int128 two_60 = static_cast<__int128>(1) << 60;
static_assert(qkov::certainly_less_equal(qkov::interval(two_60 + 1), qkov::interval(two_60)) == qkov::certainty::holds,
              "2^60 + 1 <= 2^60");
