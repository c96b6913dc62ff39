// False: "R_{2.5} = R_2". A position is an integer or a linear form: a double satisfies neither
// and is refused by the angle provider's constraint instead of being cut to 2.
// expect-error-gcc: symbolic_position
// expect-error-clang: symbolic_position
#include "qkov/circuits/rope.hpp"
#include "qkov/scalar/trig_poly.hpp"
using P = qkov::trig_poly<>;
using R = qkov::rope_rotation<P, qkov::interleaved_layout(4)>;
static_assert([] {
    const qkov::symbolic_angles<P> angles;
    return R::at(angles, 2.5) == R::at(angles, 2);
}());
