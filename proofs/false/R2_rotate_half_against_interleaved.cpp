// False twin of R2: a rotate_half rotation composed with an interleaved one is still relative.
// The two pairings rotate different coordinate pairs, so the dense product is not R_{n-m}.
// expect-error-gcc: static assertion failed: R2 false twin
// expect-error-clang: static assertion failed due to requirement
// expect-error-clang: ': R2 false twin
#include "../R2_pairings.cpp"

namespace {
static_assert([] {
    using interleaved = rope_rotation<P, interleaved_layout(8)>;
    using rotate_half = rope_rotation<P, rope_layout{8, 8, rope_pairing::rotate_half}>;
    const symbolic_angles<P> angles;
    const auto m = position(0), n = position(1);
    return transpose(rotate_half::at(angles, m).dense()) * interleaved::at(angles, n).dense() ==
           interleaved::at(angles, n - m).dense();
}(), "R2 false twin: rotate_half R_m^T times interleaved R_n is R_{n-m}");
}
