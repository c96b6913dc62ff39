// Token ids given in Python as lists of lists (scan's calibrate=, detect's text=), converted for the
// library, whose readers then check them against the model (io::check_token_sequences).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace qkov::python {

/// `value` as sequences of token ids. Anything else (a list of strings or floats, lists nested a
/// level deeper, a negative id) is a ValueError naming `argument` and what it takes (`expected`),
/// not pybind11's RuntimeError "Unable to cast Python instance ...", which names neither.
inline std::vector<std::vector<std::size_t>> token_id_lists(const pybind11::object& value, const std::string& argument, const std::string& expected)
{
    try {
        return value.cast<std::vector<std::vector<std::size_t>>>();
    } catch (const pybind11::cast_error&) {
        const std::string shown = pybind11::repr(value).cast<std::string>();
        throw std::invalid_argument("qkov: " + argument + ": expected " + expected + ", or sequences of token ids (lists of non-negative ints), not " +
                                    (shown.size() > 60 ? shown.substr(0, 57) + "..." : shown));
    }
}

} // namespace qkov::python
