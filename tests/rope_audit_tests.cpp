// The RoPE precision audit against expectations derived by hand from the dtypes' formats:
// rounding a value in [-1, 1] to nearest errs by at most half a unit in the last place at 1,
// i.e. 2^-(p+1) for p significand bits (fp32 24, fp16 11, bf16 8); a float32 angle near 10^6 is
// rounded to a spacing of 2^-4; a bf16 position 257 rounds to 256.
#define BOOST_TEST_MODULE qkov rope audit
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "qkov/precision/rope_audit.hpp"

using namespace qkov;
using namespace qkov::precision;

namespace {

const audit_line& line_named(const audit_report& r, const std::string& label)
{
    for (const auto& l : r.lines)
        if (l.label == label) return l;
    throw std::runtime_error("no audit line " + label);
}

double worst(const audit_line& l, double bucket_errors::*field)
{
    double w = 0;
    for (const auto& b : l.buckets) w = std::max(w, b.*field);
    return w;
}

audit_settings small_settings(std::int64_t max_position)
{
    audit_settings s;
    s.d = 64;
    s.rotary_dim = 64;
    s.pairing = rope_pairing::rotate_half;
    s.base = 10000;
    s.max_position = max_position;
    s.samples_per_bucket = 12;
    return s;
}

constexpr rope_layout half64{64, 64, rope_pairing::rotate_half};

/// x with entries 0.25 + (i mod 7) / 8, and the rows y_p = R_p x (rotate_half, d = 64, base
/// 10000) for p < positions, computed here in long double.
std::pair<std::vector<double>, std::vector<double>> rotated_test_vectors(std::size_t positions)
{
    std::vector<double> x(64), y(positions * 64);
    for (std::size_t i = 0; i < 64; ++i) x[i] = 0.25 + static_cast<double>(i % 7) / 8;
    for (std::size_t p = 0; p < positions; ++p)
        for (std::size_t l = 0; l < 32; ++l) {
            const long double a = static_cast<long double>(p) * std::pow(10000.0L, -static_cast<long double>(2 * l) / 64);
            const long double xi = x[l], xj = x[l + 32];
            y[p * 64 + l] = static_cast<double>(std::cos(a) * xi - std::sin(a) * xj);
            y[p * 64 + l + 32] = static_cast<double>(std::sin(a) * xi + std::cos(a) * xj);
        }
    return {x, y};
}

/// A float64 .npy of the given shape and values (C order).
std::string write_f8(const std::string& name, const std::string& shape, const std::vector<double>& values)
{
    std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    const auto path = (std::filesystem::temp_directory_path() / ("qkov_audit_" + name + ".npy")).string();
    std::ofstream out(path, std::ios::binary);
    out << "\x93NUMPY" << '\x01' << '\0' << static_cast<char>(header.size() & 0xFF) << static_cast<char>(header.size() >> 8) << header;
    out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(double)));
    return path;
}

/// A cos/sin table (2, positions, width) written as .npy (float64 or float32), values cos/sin(p theta_l)
/// computed here in long double from theta_l = base^(-2l/64).
std::string write_table(const std::string& name, std::size_t positions, bool per_coordinate, bool as_float32)
{
    const std::size_t pairs = 32, width = per_coordinate ? 64 : 32;
    std::vector<double> values(2 * positions * width);
    for (int which = 0; which < 2; ++which)
        for (std::size_t p = 0; p < positions; ++p)
            for (std::size_t c = 0; c < width; ++c) {
                const std::size_t l = per_coordinate ? c % pairs : c;  // rotate_half: columns l and l + 32 hold pair l
                const long double angle = static_cast<long double>(p) * std::pow(10000.0L, -static_cast<long double>(2 * l) / 64);
                values[(which * positions + p) * width + c] = static_cast<double>(which == 0 ? std::cos(angle) : std::sin(angle));
            }
    std::string header = "{'descr': '" + std::string(as_float32 ? "<f4" : "<f8") + "', 'fortran_order': False, 'shape': (2, " +
                         std::to_string(positions) + ", " + std::to_string(width) + "), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    const auto path = (std::filesystem::temp_directory_path() / ("qkov_audit_" + name + ".npy")).string();
    std::ofstream out(path, std::ios::binary);
    out << "\x93NUMPY" << '\x01' << '\0' << static_cast<char>(header.size() & 0xFF) << static_cast<char>(header.size() >> 8) << header;
    for (double v : values) {
        if (as_float32) {
            const float f = static_cast<float>(v);
            out.write(reinterpret_cast<const char*>(&f), sizeof f);
        } else {
            out.write(reinterpret_cast<const char*>(&v), sizeof v);
        }
    }
    return path;
}

} // namespace

BOOST_AUTO_TEST_CASE(buckets_are_decades_and_positions_cover_them)
{
    const auto b = position_buckets(131072);
    BOOST_TEST(b.size() == 6u);
    BOOST_TEST(b[0].first == 0);
    BOOST_TEST(b[0].last == 9);
    BOOST_TEST(b[5].first == 100000);
    BOOST_TEST(b[5].last == 131072);
    auto s = small_settings(131072);
    const auto p = audit_positions(s);
    BOOST_TEST(p.front() == 0);
    BOOST_TEST(p.back() == 131072);
    BOOST_TEST(std::count_if(p.begin(), p.end(), [](auto x) { return x >= 100000; }) <= 12);
}

BOOST_AUTO_TEST_CASE(fp64_angles_cast_to_a_dtype_err_by_at_most_half_an_ulp)
{
    auto s = small_settings(5000);
    const auto r = run_rope_audit<half64>(s);
    // Half a unit in the last place at 1: 2^-25 (fp32), 2^-12 (fp16), 2^-9 (bf16). The fp64
    // values being cast carry ~1e-16 of their own error.
    BOOST_TEST(worst(line_named(r, "fp32, fp64 angles"), &bucket_errors::cos_sin_abs) <= std::ldexp(1.0, -25) + 1e-15);
    BOOST_TEST(worst(line_named(r, "fp16, fp64 angles"), &bucket_errors::cos_sin_abs) <= std::ldexp(1.0, -12) + 1e-15);
    BOOST_TEST(worst(line_named(r, "bf16, fp64 angles"), &bucket_errors::cos_sin_abs) <= std::ldexp(1.0, -9) + 1e-15);
    // fp64 angles are accurate to about 1e-16 relative.
    BOOST_TEST(worst(line_named(r, "fp32, fp64 angles"), &bucket_errors::angle_rel) < 1e-15);
    // The previous-token head survives float32 rounding: its exact lead (> 1 here) dwarfs errors of ~d * 1e-7.
    BOOST_TEST(r.reference_smallest_gap > 1.0);
    BOOST_TEST(line_named(r, "fp32, fp64 angles").breakdown_query == -1);
    BOOST_TEST(line_named(r, "fp32, fp64 angles").scanned_to == 5000);
}

BOOST_AUTO_TEST_CASE(bf16_positions_break_the_previous_token_head_by_257)
{
    auto s = small_settings(2000);
    s.dtypes = {audit_dtype::bf16};
    const auto r = run_rope_audit<half64>(s);
    // bf16(257) = 256 (a tie, to even) while 255 is exact: at query position 257 the query is
    // rotated as if at 256, so key 255 sits at relative offset -1 exactly where the previous
    // token should be, and key 256 at offset 0. The head must fail there at the latest.
    const auto& all_bf16 = line_named(r, "bf16, all in bf16");
    BOOST_TEST(all_bf16.breakdown_query > 0);
    BOOST_TEST(all_bf16.breakdown_query <= 257);
    // With fp64 angles cast to bf16 the positions stay exact.
    BOOST_TEST(worst(line_named(r, "bf16, fp64 angles"), &bucket_errors::angle_abs) < 1e-9);
}

BOOST_AUTO_TEST_CASE(float32_angles_lose_accuracy_at_a_million)
{
    auto s = small_settings(1'000'000);
    s.dtypes = {audit_dtype::fp32};
    s.head_scan_limit = 1000;  // the head is tested elsewhere; keep the scan short
    const auto r = run_rope_audit<half64>(s);
    const auto& fp32 = line_named(r, "fp32, fp32 angles");
    const auto& fp64 = line_named(r, "fp32, fp64 angles");
    // Between 2^19 and 10^6 a float32 angle p * theta_0 (theta_0 = 1) is rounded to multiples of
    // 2^-4: errors are spread over [0, 2^-5]; among the sampled positions some exceed 1e-2 in
    // angle and in cos/sin, while fp64 angles stay within half an fp32 ulp (2^-25).
    BOOST_TEST(fp32.buckets.back().angle_abs > 1e-2);
    BOOST_TEST(fp32.buckets.back().cos_sin_abs > 1e-2);
    BOOST_TEST(fp32.buckets.back().angle_abs <= 0.5);  // plus inv_freq's own rounding, far below 0.5
    BOOST_TEST(fp64.buckets.back().cos_sin_abs <= std::ldexp(1.0, -25) + 1e-15);
    BOOST_TEST(fp32.buckets.front().cos_sin_abs < 1e-5);
}

BOOST_AUTO_TEST_CASE(user_tables_in_float64_and_float32)
{
    auto s = small_settings(300);
    s.dtypes = {};
    const auto exact = io::read_npy(write_table("f8", 301, false, false));
    const auto r = run_rope_audit<half64>(s, {.table = &exact});
    // long double cos/sin rounded to double: within ~1e-16 of the 100-digit reference.
    BOOST_TEST(worst(line_named(r, "table float64"), &bucket_errors::cos_sin_abs) < 1e-15);
    BOOST_TEST(worst(line_named(r, "table float64"), &bucket_errors::angle_abs) < 1e-13);
    BOOST_TEST(line_named(r, "table float64").breakdown_query == -1);

    const auto single = io::read_npy(write_table("f4", 301, true, true));
    const auto r32 = run_rope_audit<half64>(s, {.table = &single});
    const double cs = worst(line_named(r32, "table float32"), &bucket_errors::cos_sin_abs);
    BOOST_TEST(cs <= std::ldexp(1.0, -25) + 1e-15);
    BOOST_TEST(cs > 0.0);
}

BOOST_AUTO_TEST_CASE(bad_tables_are_rejected)
{
    auto s = small_settings(300);
    s.dtypes = {};
    const auto short_table = io::read_npy(write_table("short", 100, false, false));
    try {
        run_rope_audit<half64>(s, {.table = &short_table});
        BOOST_ERROR("a 100-position table passed for max_position 300");
    } catch (const audit_setting_error& e) {
        BOOST_TEST(e.setting() == "max_position");
        BOOST_TEST(e.problem().find("300 needs 301 positions; ") != std::string::npos, e.problem());
        BOOST_TEST(e.problem().find("short") != std::string::npos, e.problem());  // the file is named
    }
    // A table for d = 64 given to a d = 128 audit.
    const auto narrow = io::read_npy(write_table("narrow", 301, false, false));
    try {
        run_rope_audit<rope_layout{128, 128, rope_pairing::rotate_half}>(s, {.table = &narrow});
        BOOST_ERROR("a 32-column table passed for rotary_dim 128");
    } catch (const io::npy_error& e) {
        BOOST_TEST(std::string(e.what()).find("must have shape (2, positions, 64) or (2, positions, 128)") != std::string::npos, e.what());
    }
}

BOOST_AUTO_TEST_CASE(dtype_names)
{
    BOOST_TEST(to_string(parse_audit_dtype("bfloat16")) == "bf16");
    try {
        parse_audit_dtype("fp8");
        BOOST_ERROR("fp8 accepted as a dtype");
    } catch (const audit_setting_error& e) {
        BOOST_TEST(e.setting() == "dtypes");
        BOOST_TEST(std::string(e.what()) == "dtypes 'fp8': expected fp32, bf16 or fp16");
    }
}

BOOST_AUTO_TEST_CASE(user_rotated_vectors)
{
    const auto [x, y] = rotated_test_vectors(301);
    const auto rotated = io::read_npy(write_f8("rotated", "(301, 64)", y));
    const auto input = io::read_npy(write_f8("input", "(64,)", x));
    auto s = small_settings(300);
    s.dtypes = {};
    const auto r = run_rope_audit<half64>(s, {.rotated = &rotated, .unrotated = &input});
    // Each recovered cos/sin divides sums of products of double-rounded values: a few 1e-16.
    BOOST_TEST(worst(line_named(r, "rotated float64"), &bucket_errors::cos_sin_abs) < 1e-14);
    BOOST_TEST(line_named(r, "rotated float64").breakdown_query == -1);

    // A zero pair in x, a wrong width, and a missing partner file are refused.
    auto zero = x;
    zero[3] = zero[35] = 0;
    const auto zero_input = io::read_npy(write_f8("zero_input", "(64,)", zero));
    try {
        run_rope_audit<half64>(s, {.rotated = &rotated, .unrotated = &zero_input});
        BOOST_ERROR("a zero pair was accepted");
    } catch (const io::npy_error& e) {
        BOOST_TEST(std::string(e.what()).find("pair 3 (coordinates 3, 35) of the input vector is zero") != std::string::npos, e.what());
    }
    const auto wide = io::read_npy(write_f8("wide", "(2, 65)", std::vector<double>(130, 1.0)));
    try {
        run_rope_audit<half64>(s, {.rotated = &wide, .unrotated = &input});
        BOOST_ERROR("a 65-wide file was accepted");
    } catch (const io::npy_error& e) {
        BOOST_TEST(std::string(e.what()).find("rotated vectors must have shape (positions, 64); found (2, 65)") != std::string::npos, e.what());
    }
    BOOST_CHECK_THROW(run_rope_audit<half64>(s, {.rotated = &rotated}), std::invalid_argument);
}

// The recovery's own arithmetic neither underflows nor overflows: the same rotation of vectors
// scaled by 2^-535 (about 1e-161) or 2^531 (about 1e160) is recovered as well as at scale 1
// (before, x_i^2 + x_j^2 underflowed to subnormals, errors about 1.2, or overflowed to inf).
BOOST_AUTO_TEST_CASE(rotated_vectors_of_tiny_and_huge_scale)
{
    const auto [x, y] = rotated_test_vectors(11);
    auto s = small_settings(10);
    s.dtypes = {};
    double errors[3] = {};
    int k = 0;
    for (int exponent : {0, -535, 531}) {
        std::vector<double> xs = x, ys = y;
        for (auto& v : xs) v = std::ldexp(v, exponent);
        for (auto& v : ys) v = std::ldexp(v, exponent);
        const auto rotated = io::read_npy(write_f8("scaled_rotated", "(11, 64)", ys));
        const auto input = io::read_npy(write_f8("scaled_input", "(64,)", xs));
        const auto r = run_rope_audit<half64>(s, {.rotated = &rotated, .unrotated = &input});
        errors[k++] = worst(line_named(r, "rotated float64"), &bucket_errors::cos_sin_abs);
    }
    BOOST_TEST(errors[0] < 1e-14);
    BOOST_TEST(errors[1] == errors[0]);  // scaling by powers of two changes no rounding
    BOOST_TEST(errors[2] == errors[0]);
}

BOOST_AUTO_TEST_CASE(fp16_positions_overflow_above_65504)
{
    // fp16(65520) is infinite, so an angle computed from an fp16 position there is infinite and
    // its cos/sin NaN: the audit must report infinite errors, not drop them. The bucket
    // 10000..70000 always samples its last position 70000.
    auto s = small_settings(70000);
    s.dtypes = {audit_dtype::fp16};
    s.head_scan_limit = 100;
    const auto r = run_rope_audit<half64>(s);
    const auto& all_fp16 = line_named(r, "fp16, all in fp16");
    BOOST_TEST(std::isinf(all_fp16.buckets.back().cos_sin_abs));
    BOOST_TEST(std::isinf(all_fp16.buckets.back().cos_sin_rel));
    BOOST_TEST(std::isinf(all_fp16.buckets.back().score_abs));
    BOOST_TEST(std::isfinite(line_named(r, "fp16, fp32 angles").buckets.back().cos_sin_abs));
}

// Decade buckets up to the largest position: the decade bound stops at max_position instead of
// overflowing (signed overflow before, caught by UBSan).
BOOST_AUTO_TEST_CASE(buckets_reach_the_largest_position_without_overflow)
{
    const auto buckets = position_buckets(INT64_MAX);
    BOOST_TEST(buckets.size() == 19u);  // [0, 9], [10, 99], ..., [10^18, 2^63 - 1]
    BOOST_TEST(buckets.back().first == 1'000'000'000'000'000'000);
    BOOST_TEST(buckets.back().last == INT64_MAX);
}

// Settings the audit cannot honour are refused by name before any work, and its size is known
// up front: the default run is well under a minute, max_position 1e8 with a full head scan is hours.
// The library names the setting by its field and no command-line flag: a tool maps the field to
// its own option name, so a message with "--" in it would name a flag some tool may not have.
BOOST_AUTO_TEST_CASE(audit_settings_are_checked_and_sized_up_front)
{
    auto refused = [](auto change, const std::string& setting, const std::string& message) {
        auto s = small_settings(100);
        change(s);
        try {
            check_audit_settings(s);  // what audit_rope checks first (without its 18 layouts)
            BOOST_ERROR("accepted; expected a refusal naming " + setting);
        } catch (const audit_setting_error& e) {
            BOOST_TEST(e.setting() == setting);
            BOOST_TEST(std::string(e.what()) == message);
            BOOST_TEST(std::string(e.what()).find("--") == std::string::npos, e.what());
        }
    };
    refused([](audit_settings& s) { s.alpha = std::nan(""); }, "alpha", "alpha must be positive, finite and at most 1e6");
    refused([](audit_settings& s) { s.alpha = 1e300; }, "alpha", "alpha must be positive, finite and at most 1e6");
    refused([](audit_settings& s) { s.position_scale = 1e-300; }, "position_scale", "position_scale must be finite and in [1e-3, 1e6]");
    refused([](audit_settings& s) { s.base = std::nan(""); }, "base", "base must be greater than 1 and at most 1e12");
    refused([](audit_settings& s) { s.window = 100'000'000; }, "window", "window must be in 1..4096");
    refused([](audit_settings& s) { s.samples_per_bucket = 1'000'000'000; }, "samples_per_bucket", "samples_per_bucket must be in 2..100000");
    refused([](audit_settings& s) { s.head_scan_limit = -5; }, "head_scan_limit",
            "head_scan_limit must be 0 (scan up to the largest position) or a positive position");
    refused([](audit_settings& s) { s.max_position = 1'000'000'000; }, "max_position", "max_position must be in 1..100000000");

    audit_settings defaults;
    BOOST_TEST(audit_seconds_estimate(defaults) < 120);
    defaults.max_position = 100'000'000;
    BOOST_TEST(audit_seconds_estimate(defaults) > 3600);
    defaults.head_scan_limit = 1000;
    BOOST_TEST(audit_seconds_estimate(defaults) < 120);
}
