// False: "R_{2^32} = I for all angles" (at theta = 1, cos 2^32 = -0.8869). A 64-bit position is
// range-checked into the linear form's 32-bit constant instead of wrapping to 0.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::linear_form_constant_out_of_range()'
// expect-error-clang: non-constexpr function 'linear_form_constant_out_of_range' cannot be used in a constant expression
#include <cstdint>
#include "qkov/circuits/rope.hpp"
#include "qkov/scalar/trig_poly.hpp"
using P = qkov::trig_poly<>;
using R = qkov::rope_rotation<P, qkov::interleaved_layout(4)>;
static_assert([] {
    const qkov::symbolic_angles<P> angles;
    return R::at(angles, std::int64_t{1} << 32) == R();
}());
