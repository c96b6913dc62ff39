// False: "alpha/2 + alpha/2 = 0", with 1/2 written as a double coefficient (which used to become 0).
// expect-error-gcc: use of deleted function
// expect-error-gcc: dyadic_gaussian(F) [with F = double
// expect-error-clang: uses deleted function
// expect-error-clang: candidate constructor [with F = double] has been explicitly deleted
#include "qkov/scalar/trig_poly.hpp"
using P = qkov::trig_poly<>;
static_assert([] {
    const P alpha = P::variable(0);
    const P half{qkov::dyadic_gaussian(0.5)};
    return alpha * half + alpha * half == P(0);
}());
