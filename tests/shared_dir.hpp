// Where the tests find ../shared (model fixtures and real model files): the QKOV_SHARED_DIR
// environment variable when set, else the directory CMake's QKOV_SHARED_DIR cache variable named
// at configure time. A test whose files are absent says so and passes nothing off as checked.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include <boost/test/unit_test.hpp>

namespace qkov::test {

inline std::filesystem::path shared_dir()
{
    if (const char* env = std::getenv("QKOV_SHARED_DIR"); env != nullptr && *env != '\0') return env;
    return QKOV_SHARED_DIR_DEFAULT;
}

/// shared_dir() / relative, or an empty path (with a message in the log) when it does not exist.
inline std::filesystem::path shared_dir_or_skip(const std::string& relative)
{
    const auto p = shared_dir() / relative;
    if (!std::filesystem::exists(p)) {
        BOOST_TEST_MESSAGE("SKIPPED: " << p.string() << " is absent (set QKOV_SHARED_DIR to the shared directory)");
        BOOST_WARN_MESSAGE(false, "shared model files absent: " + p.string());
        return {};
    }
    return p;
}

} // namespace qkov::test
