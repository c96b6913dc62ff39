// False: "R_{m + 2^32} = R_m" for all m and angles. The offset 2^32 is refused by name, not wrapped to 0.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::linear_form_constant_out_of_range()'
// expect-error-clang: non-constexpr function 'linear_form_constant_out_of_range' cannot be used in a constant expression
#include <cstdint>
#include "qkov/circuits/rope.hpp"
#include "qkov/scalar/trig_poly.hpp"
using P = qkov::trig_poly<>;
using R = qkov::rope_rotation<P, qkov::interleaved_layout(4)>;
static_assert([] {
    const qkov::symbolic_angles<P> angles;
    const auto m = qkov::position(0);
    return R::at(angles, m + (std::int64_t{1} << 32)) == R::at(angles, m);
}());
