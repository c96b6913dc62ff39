// What the RoPE precision audit is asked to do: the dtypes, the layout, the schedule, the
// positions, the previous-token head's scale and window (audit_settings), the user's files
// (audit_inputs), the ranges the audit accepts (audit_limits), and the one check of them
// (check_audit_settings). Errors name the setting by its field name, never a command-line flag:
// a tool maps audit_setting_error::setting() to its own option names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "qkov/circuits/rope_layout.hpp"
#include "qkov/io/npy.hpp"

namespace qkov::precision {

/// A setting the audit cannot honour. setting() is the field of audit_settings it concerns (or
/// "dtypes" for a dtype name), problem() what is wrong with it; what() is both, e.g.
/// "max_position must be in 1..100000000". A tool that exposes the settings under other names
/// (command-line flags) replaces setting() with its own name and keeps problem().
class audit_setting_error : public std::invalid_argument {
public:
    audit_setting_error(std::string setting, std::string problem)
        : std::invalid_argument(setting + " " + problem), setting_(std::move(setting)), problem_(std::move(problem))
    {
    }
    const std::string& setting() const noexcept { return setting_; }
    const std::string& problem() const noexcept { return problem_; }

private:
    std::string setting_, problem_;
};

enum class audit_dtype { fp32, bf16, fp16 };

inline std::string to_string(audit_dtype t)
{
    return t == audit_dtype::fp32 ? "fp32" : t == audit_dtype::bf16 ? "bf16" : "fp16";
}

inline audit_dtype parse_audit_dtype(const std::string& name)
{
    if (name == "fp32" || name == "float32") return audit_dtype::fp32;
    if (name == "bf16" || name == "bfloat16") return audit_dtype::bf16;
    if (name == "fp16" || name == "float16") return audit_dtype::fp16;
    throw audit_setting_error("dtypes", "'" + name + "': expected fp32, bf16 or fp16");
}


struct audit_settings {
    std::size_t d = 128;
    std::size_t rotary_dim = 128;
    rope_pairing pairing = rope_pairing::rotate_half;
    double base = 10000;
    double position_scale = 1;  ///< linear position interpolation: angle = (p / scale) theta
    std::int64_t max_position = 131072;
    std::vector<audit_dtype> dtypes{audit_dtype::fp32, audit_dtype::bf16, audit_dtype::fp16};
    std::size_t samples_per_bucket = 64;
    double alpha = 1;            ///< the previous-token head's scale
    std::int64_t window = 32;    ///< keys n - window .. n + 1 compete with the previous token n
    std::int64_t head_scan_limit = 0;  ///< last query position the head scan visits (0: max_position)
    std::uint64_t seed = 1;
    /// Called before each implementation is measured with (index from 1, count, label): long runs show progress.
    std::function<void(std::size_t, std::size_t, const std::string&)> progress;
};

/// What the audit accepts, and why. Positions beyond 1e8 are past any model's context; the
/// reference is 100 digits, so an angle p theta / scale must stay far below 1e100 for its
/// reduction mod 2 pi to keep digits: scale >= 1e-3 keeps angles below 1e11 (89 digits left);
/// alpha only scales the head, and 1e6 is far beyond a trained head's; the window and the samples
/// bound the memory and the work of one run.
struct audit_limits {
    static constexpr std::int64_t max_position = 100'000'000;
    static constexpr double min_base = 1, max_base = 1e12;  ///< base in (1, 1e12]
    static constexpr double min_position_scale = 1e-3, max_position_scale = 1e6;
    static constexpr double max_alpha = 1e6;  ///< alpha in (0, 1e6]
    static constexpr std::int64_t max_window = 4096;
    static constexpr std::int64_t max_samples = 100'000;
};

/// What a user supplies from .npy files (each optional): a cos/sin table (table_angles.hpp), or
/// rotated vectors with the vector they rotate (rotated_vector_angles.hpp).
struct audit_inputs {
    const io::npy_array* table = nullptr;
    const io::npy_array* rotated = nullptr;
    const io::npy_array* unrotated = nullptr;
};

/// Throws audit_setting_error naming the setting the audit cannot honour (the
/// layout is checked by audit_rope's dispatch). Separate so that callers and tests can check
/// settings without instantiating the audit for every supported layout.
inline void check_audit_settings(const audit_settings& s)
{
    using limits = audit_limits;
    if (s.max_position < 1 || s.max_position > limits::max_position)
        throw audit_setting_error("max_position", "must be in 1.." + std::to_string(limits::max_position));
    if (!(s.base > limits::min_base && s.base <= limits::max_base))  // also refuses NaN
        throw audit_setting_error("base", "must be greater than 1 and at most 1e12");
    if (!(s.position_scale >= limits::min_position_scale && s.position_scale <= limits::max_position_scale))
        throw audit_setting_error("position_scale", "must be finite and in [1e-3, 1e6]");
    if (!(s.alpha > 0 && s.alpha <= limits::max_alpha))
        throw audit_setting_error("alpha", "must be positive, finite and at most 1e6");
    if (s.window < 1 || s.window > limits::max_window)
        throw audit_setting_error("window", "must be in 1.." + std::to_string(limits::max_window));
    if (s.dtypes.empty()) throw audit_setting_error("dtypes", "is empty: name at least one of fp32, bf16, fp16 to audit");
    if (s.samples_per_bucket < 2 || s.samples_per_bucket > static_cast<std::size_t>(limits::max_samples))
        throw audit_setting_error("samples_per_bucket", "must be in 2.." + std::to_string(limits::max_samples));
    if (s.head_scan_limit < 0) throw audit_setting_error("head_scan_limit", "must be 0 (scan up to the largest position) or a positive position");
}

} // namespace qkov::precision
