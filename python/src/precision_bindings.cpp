// qkov.audit_rope and qkov.validate: the RoPE precision audit (precision/rope_audit.hpp) and the
// high-precision residuals of the claims (precision/validation.hpp). Validation, not proof.
#include "bindings.hpp"
#include "python_interrupt.hpp"

#include <optional>
#include <vector>

#include <pybind11/stl.h>

#include "qkov/io/npy.hpp"
#include "qkov/precision/rope_audit_report.hpp"
#include "qkov/precision/rope_audit_settings.hpp"
#include "qkov/precision/validation_plan.hpp"
#include "precision_runs.hpp"

namespace qkov::python {

namespace {

py::dict line_dict(const precision::audit_line& line)
{
    py::list buckets;
    for (const auto& b : line.buckets)
        buckets.append(py::dict(py::arg("first") = b.first, py::arg("last") = b.last, py::arg("positions") = b.positions, py::arg("angle_abs") = b.angle_abs,
                                py::arg("angle_rel") = b.angle_rel, py::arg("cos_sin_abs") = b.cos_sin_abs, py::arg("cos_sin_rel") = b.cos_sin_rel,
                                py::arg("score_abs") = b.score_abs, py::arg("score_rel") = b.score_rel));
    py::array_t<double> curve({line.curve.size(), std::size_t{2}});
    auto c = curve.mutable_unchecked<2>();
    for (std::size_t i = 0; i < line.curve.size(); ++i) c(i, 0) = static_cast<double>(line.curve[i].first), c(i, 1) = line.curve[i].second;
    return py::dict(py::arg("label") = line.label, py::arg("recipe") = line.recipe, py::arg("buckets") = buckets, py::arg("curve") = curve,
                    py::arg("breakdown_query") = line.breakdown_query >= 0 ? py::object(py::int_(line.breakdown_query)) : py::object(py::none()),
                    py::arg("scanned_to") = line.scanned_to);
}

py::dict audit(std::size_t d, std::optional<std::size_t> rotary_dim, const std::string& pairing, double base, double position_scale,
               std::int64_t max_position, const std::vector<std::string>& dtypes, std::size_t samples, double alpha, std::int64_t window,
               std::int64_t head_scan_limit, std::uint64_t seed, std::optional<std::string> table)
{
    precision::audit_settings s;
    s.d = d, s.rotary_dim = rotary_dim.value_or(d), s.base = base, s.position_scale = position_scale, s.max_position = max_position;
    if (pairing == "rotate_half") s.pairing = rope_pairing::rotate_half;
    else if (pairing == "interleaved") s.pairing = rope_pairing::interleaved;
    else throw std::invalid_argument("qkov: pairing '" + pairing + "': expected 'rotate_half' or 'interleaved'");
    s.dtypes.clear();
    for (const auto& t : dtypes) s.dtypes.push_back(precision::parse_audit_dtype(t));
    s.samples_per_bucket = samples, s.alpha = alpha, s.window = window, s.head_scan_limit = head_scan_limit, s.seed = seed;
    s.progress = [](std::size_t, std::size_t, const std::string&) { raise_pending_signal(); };  // Ctrl-C, before each implementation
    precision::audit_report report;
    {
        const py::gil_scoped_release release;
        std::optional<io::npy_array> cos_sin;
        precision::audit_inputs inputs;
        if (table) inputs.table = &cos_sin.emplace(io::read_npy(*table));
        report = runs::audit_rope(s, inputs);
    }
    py::list lines;
    for (const auto& line : report.lines) lines.append(line_dict(line));
    return py::dict(py::arg("lines") = lines, py::arg("reference_smallest_gap") = report.reference_smallest_gap, py::arg("files") = report.user_files);
}

py::list validate(int digits, bool quick, std::optional<std::int64_t> max_position, const std::optional<std::vector<std::string>>& claims)
{
    if (digits != 50 && digits != 100) throw std::invalid_argument("qkov: digits " + std::to_string(digits) + ": only 50 and 100 are built in");
    precision::validation_plan plan;
    if (max_position) {
        if (*max_position < precision::smallest_max_position || *max_position > precision::largest_max_position)
            throw std::invalid_argument("qkov: max_position " + std::to_string(*max_position) + " is out of range, expected an integer in " +
                                        std::to_string(precision::smallest_max_position) + ".." + std::to_string(precision::largest_max_position) +
                                        " (as qkov validate --max-position)");
        plan.max_position = *max_position;
    }
    if (claims) {
        // Empty means every claim to the plan: an empty list is a mistake, not a request for all.
        if (claims->empty()) throw std::invalid_argument("qkov: claims is empty: name at least one of the validated claims, or pass None for all");
        plan.claims = *claims;  // validate_claims names a claim without a row
    }
    if (quick) plan = precision::quick_plan(plan);  // as `qkov validate --quick`
    std::vector<precision::validation_row> rows;
    {
        const py::gil_scoped_release release;
        rows = runs::validate(plan, digits, "cpp_bin_float");
    }
    py::list out;
    for (const auto& r : rows)
        out.append(py::dict(py::arg("claim") = r.claim, py::arg("size") = r.size, py::arg("digits") = r.digits, py::arg("max_residual") = r.result.max_residual,
                            py::arg("bound") = r.result.bound, py::arg("within_bound") = r.result.within_bound(), py::arg("implied") = r.result.implied,
                            py::arg("note") = r.result.note, py::arg("seconds") = r.seconds));
    return out;
}

} // namespace

void bind_precision(py::module_& m)
{
    m.def("audit_rope", &audit, py::arg("d") = 128, py::arg("rotary_dim") = py::none(), py::arg("pairing") = "rotate_half", py::arg("base") = 10000.0,
          py::arg("position_scale") = 1.0, py::arg("max_position") = 131072, py::arg("dtypes") = std::vector<std::string>{"fp32", "bf16", "fp16"},
          py::arg("samples") = 64, py::arg("alpha") = 1.0, py::arg("window") = 32, py::arg("head_scan_limit") = 0, py::arg("seed") = 1,
          py::arg("table") = py::none(),
          "The RoPE precision audit (`qkov audit-rope`): float recipes of the rotation against a 100-digit reference, and where seed 001's "
          "previous-token head first fails. Returns a dict: lines (per recipe: label, recipe, buckets of errors by position, curve [k, 2] of "
          "(position, max |cos/sin error|), breakdown_query or None), reference_smallest_gap, files. table: a .npy cos/sin table to audit too. "
          "Raises ValueError naming the setting it cannot honour.");
    m.def("validate", &validate, py::arg("digits") = 50, py::arg("quick") = false, py::arg("max_position") = py::none(), py::arg("claims") = py::none(),
          "The high-precision validation (`qkov validate`, Boost's cpp_bin_float): per claim its residual at `digits` (50 or 100) against "
          "the bound of its error analysis. Returns a list of dicts (claim, size, digits, max_residual, bound, within_bound, implied, note, "
          "seconds). claims: only these rows (`qkov validate --claims`; None: every claim). Validation, not proof.");
}

} // namespace qkov::python
