// The RoPE angles a checkpoint declares, as a run-time angle provider for numeric/rope_batch.hpp.
//
// theta_l = base^(-2l / rotary_dim) (the standard schedule, as circuits/rope_schedules.hpp defines
// it for a fixed pair count), then the config's scaling:
//   linear   theta_l / factor;
//   llama3   Meta's blend by wavelength 2 pi / theta_l: beyond original_max / low_freq_factor the
//            angle is divided by factor, below original_max / high_freq_factor it is kept, and in
//            between the two are mixed with weight s = (original_max / wavelength - low) / (high - low);
//   dynamic  unscaled: NTK scaling changes the angles only for sequences past the model's context,
//            which the forward pass refuses (the config reader requires the context to be stated).
// Other scalings (yarn, longrope, ...) change the angles with the sequence length or add an
// attention factor; the config reader refuses them by name (io/unmodelled_settings.hpp), and
// rope_theta refuses them too rather than silently run the standard schedule.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "qkov/circuits/rope_schedules.hpp"
#include "qkov/io/model_config.hpp"

namespace qkov::forward {

/// theta_l for l < rotary_dim / 2, with the config's scaling applied, in T: double for the forward
/// pass, a certified interval for the scan's offset certificates (scan/structure_measurement.hpp), which
/// then enclose the angles the model uses. llama3's blend compares wavelengths, which an interval
/// cannot decide in general: it is computed for floating-point T only.
/// Whether rope_theta applies the scaling (none, linear, llama3, dynamic).
inline bool scaling_applied(const io::rope_config& rope)
{
    return !rope.scaling || rope.scaling->type == "linear" || rope.scaling->type == "llama3" || rope.scaling->type == "dynamic";
}

/// Whether rope_theta<interval> encloses the angles: every applied scaling but llama3's blend,
/// whose comparison of wavelengths an interval cannot decide.
inline bool angles_enclosed(const io::rope_config& rope) { return scaling_applied(rope) && !(rope.scaling && rope.scaling->type == "llama3"); }

template <class T = double>
std::vector<T> rope_theta(const io::rope_config& rope)
{
    using std::pow;
    const std::size_t pairs = rope.rotary_dim / 2;
    std::vector<T> theta;
    for (std::size_t l = 0; l < pairs; ++l) theta.push_back(pow(T(rope.base), standard_exponent<T>(l, pairs)));
    if (!rope.scaling) return theta;
    const io::rope_scaling& s = *rope.scaling;
    if (s.type == "linear") {
        for (T& t : theta) t = t / T(s.factor);
    } else if (s.type == "dynamic") {
        // Unscaled within the context (see above).
    } else if (s.type == "llama3") {
        if constexpr (std::is_floating_point_v<T>) {
            if (!(s.high_freq_factor > s.low_freq_factor))
                throw std::invalid_argument("qkov: llama3 RoPE scaling needs high_freq_factor > low_freq_factor");
            const double low_wavelength = s.original_max_position_embeddings / s.low_freq_factor;
            const double high_wavelength = s.original_max_position_embeddings / s.high_freq_factor;
            for (T& t : theta) {
                const double wavelength = 2 * std::numbers::pi / t;
                if (wavelength > low_wavelength) t /= s.factor;
                else if (wavelength >= high_wavelength) {
                    const double smooth = (s.original_max_position_embeddings / wavelength - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
                    t = (1 - smooth) * t / s.factor + smooth * t;
                }
            }
        } else {
            throw std::invalid_argument("qkov: llama3 RoPE scaling's blend of angles is not enclosed in interval arithmetic");
        }
    } else {
        throw std::invalid_argument("qkov: the forward pass does not apply RoPE scaling of type '" + s.type + "' (it applies none, linear, llama3 and dynamic)");
    }
    return theta;
}

/// An angle provider over a schedule known only at run time: cos and sin of position * theta_l in T.
template <class T>
struct schedule_angles {
    using scalar = T;
    std::vector<T> theta;

    [[nodiscard]] std::pair<T, T> cos_sin(std::size_t l, std::int64_t position) const
    {
        const T a = T(position) * theta[l];
        return {std::cos(a), std::sin(a)};
    }
};

template <class T>
schedule_angles<T> rope_angles(const io::rope_config& rope)
{
    schedule_angles<T> angles;
    for (const double t : rope_theta(rope)) angles.theta.push_back(static_cast<T>(t));
    return angles;
}

} // namespace qkov::forward
