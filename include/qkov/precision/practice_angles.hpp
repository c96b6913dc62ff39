// RoPE angle providers that mirror how real code computes cos/sin tables, for the precision
// audit. Each is an angle provider for rope_rotation (cos_sin(l, position)), with the angle
// itself exposed for error reports. A recipe fixes three choices:
//   - inv_freq: computed as 1 / base^(2l / rotary_dim) in float32 (Hugging Face's formula), then
//     possibly stored rounded to the model's dtype X (model.to(bfloat16) converts such buffers);
//   - the angle position * inv_freq: in X, in float32 or in float64 (positions are converted to
//     that type: a bf16 position is rounded above 256, an fp16 one overflows above 65504);
//   - cos and sin: evaluated in the angle's type and rounded to X.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "qkov/circuits/rope.hpp"

namespace qkov::precision {

/// inv_freq_l = 1 / base^(2l / rotary_dim) in float32, l < Pairs, divided by a linear position
/// scale (position interpolation: angle = (position / scale) inv_freq).
template <std::size_t Pairs>
std::array<float, Pairs> float32_inverse_frequencies(double base, double position_scale)
{
    std::array<float, Pairs> inv_freq{};
    for (std::size_t l = 0; l < Pairs; ++l) {
        // The library's exponent, in float: -standard_exponent is 2l / rotary_dim, rounded exactly
        // as float(2l) / float(rotary_dim) (negation is exact), then 1 / base^that as practice does.
        const float exponent = -standard_exponent<float>(l, Pairs);
        inv_freq[l] = 1.0f / std::pow(static_cast<float>(base), exponent) / static_cast<float>(position_scale);
    }
    return inv_freq;
}

/// cos/sin computed by numeric_angles in Angle arithmetic, then rounded to X.
template <class X, class Angle, std::size_t Pairs>
struct practice_angles {
    using scalar = X;
    numeric_angles<Angle, Pairs> angles;

    std::pair<X, X> cos_sin(std::size_t l, std::int64_t position) const
    {
        const auto [c, s] = angles.cos_sin(l, position);
        return {X(c), X(s)};
    }
    double angle(std::size_t l, std::int64_t position) const { return static_cast<double>(angles.angle(l, position)); }
};

/// inv_freq in float32, rounded to Stored, then used in Angle arithmetic.
template <class Angle, class Stored, std::size_t Pairs>
numeric_angles<Angle, Pairs> stored_frequencies(const std::array<float, Pairs>& inv_freq)
{
    numeric_angles<Angle, Pairs> a;
    for (std::size_t l = 0; l < Pairs; ++l) a.theta[l] = Angle(static_cast<float>(Stored(inv_freq[l])));
    return a;
}

} // namespace qkov::precision
