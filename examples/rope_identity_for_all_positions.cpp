// Writing your own proof about RoPE against qkov's public headers.
//
// Each static_assert below is checked by the compiler for *all* integer positions m, n and all
// angles theta_l (each pair of coordinates has its own symbolic angle), not at sample points:
// the polynomials compared are canonical, so equal means identical as functions. Change a sign
// in any statement and the program stops compiling. At run time the program evaluates one of
// the symbolic results numerically, as a sanity check a reader can see.
#include <cmath>
#include <complex>
#include <cstdio>

#include "qkov/circuits/rope.hpp"
#include "qkov/scalar/trig_poly.hpp"
#include "qkov/scalar/trig_poly_evaluate.hpp"

using namespace qkov;
using P = trig_poly<>;
constexpr rope_layout llama_like{128, 128, rope_pairing::rotate_half};  // d = 128, Hugging Face pairing
using R = rope_rotation<P, llama_like>;

// Rotating a query by m and a key by n only depends on n - m ...
static_assert([] {
    const symbolic_angles<P> angles;
    const auto m = position(0), n = position(1);
    return transpose(R::at(angles, m)) * R::at(angles, n) == R::at(angles, n - m);
}());

// ... so shifting both positions by the same amount changes nothing:
static_assert([] {
    const symbolic_angles<P> angles;
    const auto m = position(0), n = position(1);
    return transpose(R::at(angles, m + 7)) * R::at(angles, n + 7) == transpose(R::at(angles, m)) * R::at(angles, n);
}());

// A classic identity, per frequency: cos(a) cos(b) - sin(a) sin(b) = cos(a + b).
static_assert([] {
    const auto m = position(0), n = position(1);
    return P::cos(5, m) * P::cos(5, n) - P::sin(5, m) * P::sin(5, n) == P::cos(5, m + n);
}());

int main()
{
    // Evaluate cos((n - m) theta_0) * cos((n - m) theta_0) + sin(...)^2 symbolically (it is 1), and
    // the first entry of R_3^T R_10 at theta_0 = 0.25, which must be cos(7 * 0.25).
    const auto m = position(0), n = position(1);
    const P one = P::cos(0, n - m) * P::cos(0, n - m) + P::sin(0, n - m) * P::sin(0, n - m);
    const symbolic_angles<P> angles;
    const P entry = (transpose(R::at(angles, m)) * R::at(angles, n)).dense()(0, 0);
    const std::complex<double> value = evaluate(entry, {}, {0.25}, {3, 10});
    std::printf("cos^2 + sin^2 has %zu term(s): %s\n", one.size(), one == P(1) ? "it is exactly 1" : "NOT 1");
    std::printf("(R_3^T R_10)(0, 0) at theta_0 = 0.25: %.15f (cos(1.75) = %.15f)\n", value.real(), std::cos(1.75));
    const bool ok = one == P(1) && std::abs(value - std::cos(1.75)) < 1e-12;
    return ok ? 0 : 1;
}
