// False: "cos(m theta_65536) = cos(m theta_0)" for all angles. Angle ids are 16-bit; 65536 is refused.
// expect-error-gcc: call to non-'constexpr' function 'void qkov::angle_id_out_of_range()'
// expect-error-clang: non-constexpr function 'angle_id_out_of_range' cannot be used in a constant expression
#include "qkov/scalar/trig_poly.hpp"
using P = qkov::trig_poly<>;
static_assert([] {
    const auto m = qkov::position(0);
    return P::cos(65536, m) == P::cos(0, m);
}());
