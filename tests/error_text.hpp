// What the tests ask of an error: the message a call throws, and whether it says what it should.
#pragma once

#include <exception>
#include <string>

namespace qkov::test {

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// The message `f` throws, or "(no error)" when it returns.
template <class F>
std::string error_of(F&& f)
{
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace qkov::test
