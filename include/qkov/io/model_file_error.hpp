// The one error type of the model readers: every message names the file, the tensor (when there is
// one) and what is wrong, so that a bad checkpoint can be found and fixed without a debugger.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace qkov::io {

class model_file_error : public std::runtime_error {
public:
    model_file_error(std::string_view file, std::string_view problem)
        : std::runtime_error(std::string(file) + ": " + std::string(problem))
    {
    }
    model_file_error(std::string_view file, std::string_view tensor, std::string_view problem)
        : std::runtime_error(std::string(file) + ": tensor '" + std::string(tensor) + "': " + std::string(problem))
    {
    }
};

} // namespace qkov::io
