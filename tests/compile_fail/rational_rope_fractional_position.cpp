// False: "R_{2.5} = R_2" with exact Pythagorean rotations. The position must be an integer.
// expect-error-gcc: integer_position
// expect-error-clang: integer_position
#include "qkov/circuits/rope.hpp"
#include "qkov/scalar/rational.hpp"
using Q = qkov::rational<qkov::checked_int128>;
using R = qkov::rope_rotation<Q, qkov::interleaved_layout(2)>;
static_assert([] {
    const qkov::rational_angles<Q, 1> angles{{{{2, 1}}}};
    return R::at(angles, 2.5) == R::at(angles, 2);
}());
