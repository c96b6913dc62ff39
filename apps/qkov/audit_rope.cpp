#include "audit_rope.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "qkov/io/atomic_file.hpp"
#include "qkov/io/npy.hpp"
#include "qkov/precision/rope_audit_estimate.hpp"
#include "qkov/precision/rope_audit_report.hpp"
#include "qkov/precision/rope_audit_settings.hpp"
#include "qkov/report/line_plot.hpp"
#include "qkov/report/number_text.hpp"
#include "qkov/report/table.hpp"

#include "number_options.hpp"
#include "qkov/io/document_schemas.hpp"
#include "precision_runs.hpp"

namespace qkov::app {
namespace {

struct audit_options {
    precision::audit_settings settings;
    std::vector<std::string> dtypes{"fp32", "bf16", "fp16"};
    std::size_t rotary_dim = 0;  // 0: d
    std::string pairing = "rotate_half";
    std::string npy, npy_rotated, npy_input;
    bool npy_bf16 = false;
    std::string json = "report/audit-rope.json";
    std::string figure = "report/audit-rope.png";
};

// nan and inf (fp16 overflow) print as words: report::scientific.
std::string sci(double x) { return report::scientific(x); }

void print_report(std::ostream& out, const precision::audit_report& r)
{
    const auto& s = r.settings;
    out << "RoPE precision audit: d = " << s.d << ", rotary_dim = " << s.rotary_dim << ", "
        << (s.pairing == rope_pairing::interleaved ? "interleaved" : "rotate_half") << " pairing, base = " << s.base
        << ", position scale = " << s.position_scale << ", positions 0.." << s.max_position << " (up to "
        << s.samples_per_bucket << " sampled per bucket)\n"
        << "Reference: the library's rope_rotation in 100-digit arithmetic (cpp_bin_float_100). Errors are max over the "
           "sampled positions of the bucket and over pairs; relative cos/sin errors only where |reference| >= 1e-3; "
           "score = q.k (query at p, key at p - 1) relative to |q||k|.\n"
        << "Previous-token head (alpha = " << s.alpha << ", keys n-" << s.window << "..n+1 against the previous key n): "
        << "in exact arithmetic its smallest lead is " << r.reference_smallest_gap
        << (r.reference_smallest_gap > 0 ? " (it works at every position)" : " (it fails even in exact arithmetic)") << "\n";
    for (const auto& line : r.lines) {
        report::table errors({"positions", "angle abs", "angle rel", "cos/sin abs", "cos/sin rel", "score abs", "score rel"});
        for (const auto& b : line.buckets)
            errors.add_row({std::to_string(b.first) + ".." + std::to_string(b.last), sci(b.angle_abs), sci(b.angle_rel),
                            sci(b.cos_sin_abs), sci(b.cos_sin_rel), sci(b.score_abs), sci(b.score_rel)});
        out << "\n## " << line.label << "\n" << line.recipe << "\n\n" << errors.markdown();
        out << "previous-token head: ";
        if (line.breakdown_query >= 0)
            out << "first fails at query position " << line.breakdown_query << "\n";
        else
            out << "largest score on the previous token at every query position 1.." << line.scanned_to
                << (line.scanned_to < s.max_position ? " (the scan stopped there: --head-scan)" : "") << "\n";
    }
}

nlohmann::json to_json(const precision::audit_report& r)
{
    const auto& s = r.settings;
    nlohmann::json j;
    j["settings"] = {{"d", s.d},
                     {"rotary_dim", s.rotary_dim},
                     {"pairing", s.pairing == rope_pairing::interleaved ? "interleaved" : "rotate_half"},
                     {"base", s.base},
                     {"position_scale", s.position_scale},
                     {"max_position", s.max_position},
                     {"samples_per_bucket", s.samples_per_bucket},
                     {"alpha", s.alpha},
                     {"window", s.window},
                     {"seed", s.seed},
                     {"reference", "cpp_bin_float_100"}};
    j["settings"]["user_files"] = r.user_files;
    j["schema"] = schemas::audit_rope;
    j["reference_smallest_gap"] = r.reference_smallest_gap;
    // Non-finite errors (fp16 overflow) are written as strings: JSON has no inf or NaN.
    auto number = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(sci(x)); };
    for (const auto& line : r.lines) {
        nlohmann::json l = {{"label", line.label}, {"recipe", line.recipe}, {"scanned_to", line.scanned_to}};
        l["previous_token_head_first_failure"] = line.breakdown_query >= 0 ? nlohmann::json(line.breakdown_query) : nlohmann::json(nullptr);
        for (const auto& b : line.buckets)
            l["buckets"].push_back({{"first", b.first}, {"last", b.last}, {"sampled", b.positions},
                                    {"angle_abs", number(b.angle_abs)}, {"angle_rel", number(b.angle_rel)},
                                    {"cos_sin_abs", number(b.cos_sin_abs)}, {"cos_sin_rel", number(b.cos_sin_rel)},
                                    {"score_abs", number(b.score_abs)}, {"score_rel", number(b.score_rel)}});
        for (const auto& [p, e] : line.curve) l["cos_sin_abs_by_position"].push_back({p, number(e)});
        j["lines"].push_back(l);
    }
    return j;
}

/// One series per line: the max |cos/sin error| over quarter-decade bins of the sampled
/// positions. Bins whose error is 0 (exact) or not finite cannot sit on a log axis and are left out.
void write_figure(const precision::audit_report& r, const std::filesystem::path& path)
{
    report::line_plot plot({.title = "RoPE cos/sin error against the 100-digit reference (d = " + std::to_string(r.settings.d) +
                                     ", base " + std::to_string(static_cast<long long>(r.settings.base)) + ")",
                            .x_label = "position",
                            .y_label = "max |cos/sin error|",
                            .x_scale = report::scale_kind::log10,
                            .y_scale = report::scale_kind::log10,
                            .width = 1000,
                            .height = 680});
    std::size_t drawn = 0;
    for (const auto& line : r.lines) {
        std::map<int, std::pair<double, double>> bins;  // quarter decade -> (largest position, largest error)
        for (const auto& [p, e] : line.curve) {
            if (p < 1) continue;
            const int bin = static_cast<int>(std::floor(4 * std::log10(static_cast<double>(p))));
            auto& [x, y] = bins[bin];
            x = std::max(x, static_cast<double>(p));
            y = std::max(y, e);  // inf stays inf and is dropped below
        }
        std::vector<double> xs, ys;
        for (const auto& [bin, point] : bins)
            if (point.second > 0 && std::isfinite(point.second)) xs.push_back(point.first), ys.push_back(point.second);
        if (xs.empty()) continue;
        plot.add_series(line.label, xs, ys, {.markers = true});
        ++drawn;
    }
    if (drawn == 0) throw std::runtime_error("audit-rope: no finite, nonzero errors to plot");
    plot.save(path);
}

int run_with_settings(audit_options o)
{
    auto& s = o.settings;
    s.rotary_dim = o.rotary_dim == 0 ? s.d : o.rotary_dim;
    s.pairing = o.pairing == "interleaved" ? rope_pairing::interleaved : rope_pairing::rotate_half;
    s.dtypes.clear();
    for (const auto& name : o.dtypes) s.dtypes.push_back(precision::parse_audit_dtype(name));
    std::optional<io::npy_array> table, rotated, unrotated;
    precision::audit_inputs inputs;
    if (!o.npy.empty()) inputs.table = &table.emplace(io::read_npy(o.npy, {.uint16_is_bf16 = o.npy_bf16}));
    if (!o.npy_rotated.empty()) inputs.rotated = &rotated.emplace(io::read_npy(o.npy_rotated, {.uint16_is_bf16 = o.npy_bf16}));
    if (!o.npy_input.empty()) inputs.unrotated = &unrotated.emplace(io::read_npy(o.npy_input, {.uint16_is_bf16 = o.npy_bf16}));

    // The size of the run is known before it starts: say how long it may take, then show progress.
    const double estimate = precision::audit_seconds_estimate(s, inputs);
    if (estimate > 30)
        std::cerr << "audit-rope: this run may take up to " << static_cast<long long>(estimate / 60 + 1)
                  << " min (--max-pos, --head-scan, --samples and --window set its size)\n";
    if (estimate > 10)
        s.progress = [](std::size_t k, std::size_t n, const std::string& label) {
            std::cerr << "audit-rope: [" << k << "/" << n << "] " << label << "\n";
        };
    const auto report = runs::audit_rope(s, inputs);
    print_report(std::cout, report);
    for (const auto* path : {&o.json, &o.figure})
        if (!path->empty() && std::filesystem::path(*path).has_parent_path())
            std::filesystem::create_directories(std::filesystem::path(*path).parent_path());
    if (!o.json.empty()) {
        io::write_file_atomically(o.json, to_json(report).dump(1) + "\n");
        std::cout << "\nwrote " << o.json << "\n";
    }
    if (!o.figure.empty()) {
        io::write_file_atomically_with(o.figure, [&](const std::filesystem::path& temporary) { write_figure(report, temporary); });
        std::cout << "wrote " << o.figure << "\n";
    }
    return 0;
}

// The library names a setting by its field; the user knows it by its flag. The flags' validators
// read the text (which the library never sees: "abc", or "-1" before it wraps in a std::size_t)
// against the library's audit_limits; what the library refuses after that (a dtype name, a user's
// file shorter than --max-pos) is reported through this table under the flag's name.
const std::map<std::string, std::string>& flag_of_setting()
{
    static const std::map<std::string, std::string> flags{
        {"d", "--d"},           {"rotary_dim", "--rotary-dim"},         {"pairing", "--pairing"},
        {"base", "--base"},     {"position_scale", "--position-scale"}, {"max_position", "--max-pos"},
        {"dtypes", "--dtype"},  {"samples_per_bucket", "--samples"},    {"alpha", "--alpha"},
        {"window", "--window"}, {"head_scan_limit", "--head-scan"}};
    return flags;
}

/// Runs the audit; a refused setting is reported under its flag.
int run(audit_options o)
{
    try {
        return run_with_settings(std::move(o));
    } catch (const precision::audit_setting_error& e) {
        const auto flag = flag_of_setting().find(e.setting());
        if (flag == flag_of_setting().end()) throw;
        throw std::invalid_argument(flag->second + " " + e.problem());
    }
}

} // namespace

subcommand add_audit_rope(CLI::App& app)
{
    auto o = std::make_shared<audit_options>();
    auto* c = app.add_subcommand("audit-rope", "RoPE precision audit: fp32/bf16/fp16 recipes or a .npy cos/sin table against a 100-digit reference");
    using limits = precision::audit_limits;
    c->add_option("--d", o->settings.d, "Head width (64, 128 or 256)")->check(integer_in(1, 256))->capture_default_str();
    c->add_option("--base", o->settings.base, "RoPE base (theta)")
        ->check(finite_in(limits::min_base, limits::max_base, true))->capture_default_str();
    c->add_option("--dtype", o->dtypes, "Dtypes to audit: fp32, bf16, fp16 (comma-separated)")->delimiter(',')->capture_default_str();
    c->add_option("--max-pos", o->settings.max_position, "Largest position")->check(integer_in(1, limits::max_position))->capture_default_str();
    c->add_option("--npy", o->npy, "A cos/sin table to audit: shape (2, positions, rotary_dim/2) or (2, positions, rotary_dim)")
        ->check(CLI::ExistingFile);
    auto* rotated = c->add_option("--npy-rotated", o->npy_rotated, "Rotated vectors R_p x to audit: shape (positions, d)")
                        ->check(CLI::ExistingFile);
    auto* input = c->add_option("--npy-input", o->npy_input, "The unrotated x of --npy-rotated: shape (d,)")->check(CLI::ExistingFile);
    rotated->needs(input);
    input->needs(rotated);
    c->add_flag("--npy-bf16", o->npy_bf16, "The .npy files hold bfloat16 bit patterns as uint16 ('<u2')");
    c->add_option("--rotary-dim", o->rotary_dim, "Rotated coordinates (d, d/2 or d/4; default d)")->check(integer_in(0, 256));
    c->add_option("--pairing", o->pairing, "interleaved (2l, 2l+1) or rotate_half (l, l + rotary_dim/2)")
        ->check(CLI::IsMember({"interleaved", "rotate_half"}))->capture_default_str();
    c->add_option("--position-scale", o->settings.position_scale, "Linear position interpolation factor")
        ->check(finite_in(limits::min_position_scale, limits::max_position_scale))->capture_default_str();
    c->add_option("--samples", o->settings.samples_per_bucket, "Positions sampled per decade")
        ->check(integer_in(2, limits::max_samples))->capture_default_str();
    c->add_option("--alpha", o->settings.alpha, "The previous-token head's alpha")
        ->check(finite_in(0, limits::max_alpha, true))->capture_default_str();
    c->add_option("--window", o->settings.window, "Keys n-window..n+1 compete with the previous token")
        ->check(integer_in(1, limits::max_window))->capture_default_str();
    c->add_option("--head-scan", o->settings.head_scan_limit, "Last query position of the head scan (0: --max-pos)")
        ->check(integer_in(0, limits::max_position))->capture_default_str();
    c->add_option("--json", o->json, "JSON output ('' for none)")->capture_default_str();
    c->add_option("--figure", o->figure, "PNG figure ('' for none)")->capture_default_str();
    return {c, [o] { return run(*o); }};
}

} // namespace qkov::app
