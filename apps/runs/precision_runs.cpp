#include "precision_runs.hpp"

#include <cstddef>
#include <stdexcept>

#include <boost/multiprecision/cpp_bin_float.hpp>

#include "qkov/precision/large_stack.hpp"
#include "qkov/precision/rope_audit.hpp"
#include "qkov/precision/validation.hpp"
#ifdef QKOV_HAVE_MPFR
#include "qkov/precision/mpfr.hpp"
#endif

namespace qkov::runs {

precision::audit_report audit_rope(const precision::audit_settings& settings, const precision::audit_inputs& inputs)
{
    return precision::audit_rope(settings, inputs);
}

namespace {

std::vector<precision::validation_row> validate_at(const precision::validation_plan& plan, int digits, const std::string& backend)
{
    namespace mp = boost::multiprecision;
    if (backend == "cpp_bin_float") {
        if (digits == 50) return precision::validate_claims<mp::cpp_bin_float_50>(plan);
        if (digits == 100) return precision::validate_claims<mp::cpp_bin_float_100>(plan);
    } else if (backend == "mpfr") {
#ifdef QKOV_HAVE_MPFR
        if (digits == 50) return precision::validate_claims<precision::mpfr_50>(plan);
        if (digits == 100) return precision::validate_claims<precision::mpfr_100>(plan);
#else
        throw std::invalid_argument("backend mpfr: this qkov was built without MPFR (install libmpfr-dev and reconfigure)");
#endif
    } else {
        throw std::invalid_argument("backend '" + backend + "': expected cpp_bin_float or mpfr");
    }
    throw std::invalid_argument("digits " + std::to_string(digits) + ": only 50 and 100 are built in");
}

} // namespace

std::vector<precision::validation_row> validate(const precision::validation_plan& plan, int digits, const std::string& backend)
{
    return precision::run_with_stack(std::size_t{1} << 30, [&] { return validate_at(plan, digits, backend); });
}

} // namespace qkov::runs
