// How far a weight read from a Q8_0 tensor (GGUF) may lie from the number it quantised: one bound
// for every comparison of a quantised container with an exact one (the weight fingerprint, the
// tests of a model's containers).
#pragma once

namespace qkov::io {

/// The largest |stored - exact| of a Q8_0 block whose largest |w| is at most `largest`: half a
/// step (step = the block's largest |w| / 127), plus the step's own float16 rounding (at most
/// 127 x 2^-11 of a step), plus 1e-7 for the float32 the exact weight was written in.
inline double q8_0_error_bound(double largest)
{
    return (0.5 + 127.0 / 2048.0) * largest / 127 + 1e-7;
}

} // namespace qkov::io
