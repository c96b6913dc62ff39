// The --markdown FILE and --figures DIR pair of the subcommands that write a report with figures
// (scan, detect): checked before any work is done, and the link from the one to the other.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace qkov::app {

/// Named errors, before the run, for a --markdown that is a directory or a --figures that is a file.
inline void check_report_paths(const std::string& markdown, const std::string& figures)
{
    if (!markdown.empty() && std::filesystem::is_directory(markdown))
        throw std::invalid_argument("qkov: --markdown " + markdown + ": is a directory, expected a file name");
    if (!figures.empty() && std::filesystem::exists(figures) && !std::filesystem::is_directory(figures))
        throw std::invalid_argument("qkov: --figures " + figures + ": exists and is not a directory");
}

/// The figures' directory as the Markdown report at `report` links it: relative to the report's
/// directory, with '/' separators.
inline std::string figures_relative_to(const std::filesystem::path& figures, const std::filesystem::path& report)
{
    namespace fs = std::filesystem;
    return fs::absolute(figures).lexically_normal().lexically_relative(fs::absolute(report).parent_path().lexically_normal()).generic_string();
}

} // namespace qkov::app
