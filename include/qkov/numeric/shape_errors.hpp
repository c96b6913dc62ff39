// Run-time shape checks of the xtensor layer. The fixed-size matrix<> layer rejects a wrong shape
// at compile time; here shapes are known only at run time, so each check throws an exception that
// names the tensor, its shape and what was expected.
#pragma once

#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <string>

namespace qkov::numeric {

/// "[r x c]" for a 2-d tensor, for messages.
template <class Tensor>
std::string shape_text(const Tensor& t)
{
    std::ostringstream s;
    s << '[';
    for (std::size_t k = 0; k < t.dimension(); ++k) s << (k ? " x " : "") << t.shape()[k];
    s << ']';
    return s.str();
}

/// Throws std::invalid_argument "qkov: <what> is [shape], <expected>" when `ok` is false.
template <class Tensor>
void require_shape(bool ok, const char* what, const Tensor& t, const std::string& expected)
{
    if (!ok) throw std::invalid_argument(std::string("qkov: ") + what + " is " + shape_text(t) + ", " + expected);
}

} // namespace qkov::numeric
