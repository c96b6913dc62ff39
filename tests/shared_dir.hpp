// Where the tests find ../shared (model fixtures and real model files): the QKOV_SHARED_DIR
// environment variable when set, else the directory CMake's QKOV_SHARED_DIR cache variable named
// at configure time. A test whose files are absent says so and passes nothing off as checked: it
// returns before its checks, the path is recorded, and test_main.cpp then ends the suite with
// CTest's skip code (77) instead of success, so CTest reports the suite as skipped, not passed.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>

#include <boost/test/unit_test.hpp>

namespace qkov::test {

/// The exit status CTest's SKIP_RETURN_CODE names for the suites (tests/CMakeLists.txt).
inline constexpr int skipped_exit_code = 77;

/// Every shared path a test of this run looked for and did not find.
inline std::set<std::string>& absent_shared_paths()
{
    static std::set<std::string> paths;
    return paths;
}

inline std::filesystem::path shared_dir()
{
    if (const char* env = std::getenv("QKOV_SHARED_DIR"); env != nullptr && *env != '\0') return env;
    return QKOV_SHARED_DIR_DEFAULT;
}

/// shared_dir() / relative, or an empty path when it does not exist: the caller returns before its
/// checks, and the suite is reported as skipped (test_main.cpp).
inline std::filesystem::path shared_dir_or_skip(const std::string& relative)
{
    const auto p = shared_dir() / relative;
    if (!std::filesystem::exists(p)) {
        if (absent_shared_paths().insert(p.string()).second)
            std::cout << "SKIPPED: " << p.string() << " is absent (set QKOV_SHARED_DIR to the shared directory)" << std::endl;
        BOOST_TEST_MESSAGE("SKIPPED: " << p.string() << " is absent");
        return {};
    }
    return p;
}

} // namespace qkov::test
