// The paths a run reads and writes besides the model (--json, --markdown, --figures, --scan,
// --seed-head-model): all checked before any work is done, so that a run either fails first or
// writes all of its outputs, never the Markdown and figures of a run whose JSON then cannot be
// written. And the link from the Markdown report to its figures.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

#include "qkov/io/atomic_file.hpp"

namespace qkov::app {

/// The outputs (and the one extra input) of a scan or detect run; an empty path is not asked for.
struct run_paths {
    std::string json, markdown;  ///< files: replaced whole, their directory created if absent (report::write_report_file)
    std::string figures;         ///< a directory, created if absent
    std::string new_model;       ///< --seed-head-model: a directory that must be new or empty
    std::string scan;            ///< detect --scan: a file to read
};

namespace detail {

/// A file can be created in `dir` once it exists: either it exists and a temporary can be created
/// (and removed) there, the way the output will be written, or its nearest existing ancestor is a
/// directory this process may create entries in. Nothing is created, so a run that fails later
/// leaves no empty directory behind.
inline void require_writable_directory(const std::string& option, const std::string& path, const std::filesystem::path& dir)
{
    namespace fs = std::filesystem;
    const std::string what = "qkov: " + option + " " + path + ": ";
    fs::path at = fs::absolute(dir).lexically_normal();
    for (;;) {
        std::error_code ec;
        const auto status = fs::status(at, ec);
        if (status.type() == fs::file_type::not_found && at.has_relative_path()) {
            at = at.parent_path();
            continue;
        }
        if (ec) throw std::runtime_error(what + "cannot look at " + at.string() + ": " + ec.message());
        if (status.type() != fs::file_type::directory) throw std::runtime_error(what + at.string() + " exists and is not a directory");
        break;
    }
    if (at != fs::absolute(dir).lexically_normal()) {
        if (::access(at.c_str(), W_OK | X_OK) != 0)
            throw std::runtime_error(what + "cannot create directories in " + at.string() + ": " + io::detail::errno_text(errno));
        return;
    }
    try {
        const io::detail::temporary_file probe(at / ".qkov-write-check");
    } catch (const io::output_file_error& e) {
        throw std::runtime_error(what + e.what());
    }
}

inline void check_output_file(const std::string& option, const std::string& path)
{
    if (path.empty()) return;
    if (std::filesystem::is_directory(path)) throw std::invalid_argument("qkov: " + option + " " + path + ": is a directory, expected a file name");
    io::detail::require_replaceable(path);  // a device (/dev/full) or a socket is refused by name
    require_writable_directory(option, path, std::filesystem::path(path).has_parent_path() ? std::filesystem::path(path).parent_path() : ".");
}

} // namespace detail

/// Named errors, before the run, for every path of `p` that the run could not write (or read).
inline void check_run_paths(const run_paths& p)
{
    namespace fs = std::filesystem;
    detail::check_output_file("--json", p.json);
    detail::check_output_file("--markdown", p.markdown);
    if (!p.figures.empty()) {
        if (fs::exists(p.figures) && !fs::is_directory(p.figures))
            throw std::invalid_argument("qkov: --figures " + p.figures + ": exists and is not a directory");
        detail::require_writable_directory("--figures", p.figures, p.figures);
    }
    if (!p.new_model.empty()) {
        // Writing into a model's directory would leave its other files beside the new ones: a mix
        // of two models that reads as one.
        std::error_code ec;
        if (fs::exists(p.new_model) && !(fs::is_directory(p.new_model) && fs::is_empty(p.new_model, ec) && !ec))
            throw std::invalid_argument("qkov: --seed-head-model " + p.new_model + ": exists and is not an empty directory (the model is written into a new one)");
        detail::require_writable_directory("--seed-head-model", p.new_model, p.new_model);
    }
    if (!p.scan.empty() && !fs::is_regular_file(p.scan)) throw std::runtime_error("qkov: --scan " + p.scan + ": not a regular file");
}

/// The figures' directory as the Markdown report at `report` links it: relative to the report's
/// directory, with '/' separators.
inline std::string figures_relative_to(const std::filesystem::path& figures, const std::filesystem::path& report)
{
    namespace fs = std::filesystem;
    return fs::absolute(figures).lexically_normal().lexically_relative(fs::absolute(report).parent_path().lexically_normal()).generic_string();
}

} // namespace qkov::app
