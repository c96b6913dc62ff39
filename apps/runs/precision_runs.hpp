// The RoPE audit and the high-precision validation as the command-line tool and the Python module
// run them, compiled once for both (precision_runs.cpp, target qkov_precision_runs). Each
// instantiates the library's 50- and 100-digit arithmetic, which takes g++ about a minute and a
// half at -O3; the tool and the module compiled it once each. Declarations only: including this
// header instantiates none of it.
#pragma once

#include <string>
#include <vector>

#include "qkov/precision/rope_audit_report.hpp"
#include "qkov/precision/rope_audit_settings.hpp"
#include "qkov/precision/validation_plan.hpp"

namespace qkov::runs {

/// precision::audit_rope: the audit of `settings`' implementations against the 100-digit reference.
precision::audit_report audit_rope(const precision::audit_settings& settings, const precision::audit_inputs& inputs);

/// Every row of the validation table at `digits` (50 or 100) in `backend` ("cpp_bin_float", or
/// "mpfr" where qkov was built with MPFR), run on a thread with a 1 GiB stack (the 100-digit
/// matrices are large stack objects: large_stack.hpp). std::invalid_argument names a digit count or
/// backend that is not built in.
std::vector<precision::validation_row> validate(const precision::validation_plan& plan, int digits, const std::string& backend);

} // namespace qkov::runs
