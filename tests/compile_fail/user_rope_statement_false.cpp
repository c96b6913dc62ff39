// A user's false statement about RoPE, written against the public headers, does not compile:
// R_m^T R_n is R_{n-m}, not R_{m-n}.
// expect-error-gcc: static assertion failed: my claim
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': my claim
#include "qkov/circuits/rope.hpp"
#include "qkov/scalar/trig_poly.hpp"
using P = qkov::trig_poly<>;
using R = qkov::rope_rotation<P, qkov::interleaved_layout(16)>;
static_assert([] {
    const qkov::symbolic_angles<P> angles;
    const auto m = qkov::position(0), n = qkov::position(1);
    return transpose(R::at(angles, m)) * R::at(angles, n) == R::at(angles, m - n);
}(), "my claim");
