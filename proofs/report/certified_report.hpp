// QKOV_CERTIFIED_REPORT(claim, what, value): makes a certified number that a proof static_asserts
// on visible to the main job's summary. The proof objects are linked into print_certified_values
// (proofs/report/), whose records are registered at start-up: the printed bounds are the very
// constants the static_asserts checked, not a second computation.
#pragma once

#include <string>
#include <vector>

#include "qkov/scalar/certified.hpp"

namespace qkov::proof_report {

struct record {
    std::string claim;  ///< the claim id, e.g. "R5"
    std::string what;   ///< the quantity, in words
    certified value;
    std::string file;
    int line;
};

inline std::vector<record>& records()
{
    static std::vector<record> all;
    return all;
}

struct registration {
    registration(const char* claim, const char* what, const certified& value, const char* file, int line)
    {
        records().push_back({claim, what, value, file, line});
    }
};

} // namespace qkov::proof_report

#define QKOV_CERTIFIED_REPORT_CONCAT2(a, b) a##b
#define QKOV_CERTIFIED_REPORT_CONCAT(a, b) QKOV_CERTIFIED_REPORT_CONCAT2(a, b)
/// Registers `value` (a qkov::certified constant expression: the macro makes it one, so what is
/// printed is computed by the compiler, never at start-up) under the claim id, at namespace scope.
#define QKOV_CERTIFIED_REPORT(claim, what, value)                                                             \
    constexpr ::qkov::certified QKOV_CERTIFIED_REPORT_CONCAT(certified_value_, __LINE__) = value;            \
    const ::qkov::proof_report::registration QKOV_CERTIFIED_REPORT_CONCAT(certified_report_, __LINE__)(       \
        #claim, what, QKOV_CERTIFIED_REPORT_CONCAT(certified_value_, __LINE__), __FILE__, __LINE__)
