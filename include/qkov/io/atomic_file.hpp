// Output files written whole or not at all.
//
// A report that a full disk cut short still parses as far as it goes, and a reader cannot tell
// it from a complete one. So every file is first written under a temporary name in the target's
// own directory (rename is atomic only within one file system), every write and the close are
// checked, the data is flushed to the disk (fsync: reports are small, so it is cheap), and only
// then is the temporary renamed over the target. On any failure the temporary is removed, the
// target is left as it was, and an output_file_error names the file and the system's reason.
//
// The target must be a regular file or not exist yet: renaming over a device (/dev/null,
// /dev/full) or a directory would replace it, so those are refused.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace qkov::io {

class output_file_error : public std::runtime_error {
public:
    output_file_error(const std::filesystem::path& path, const std::string& what)
        : std::runtime_error("cannot write " + path.string() + ": " + what)
    {
    }
};

namespace detail {

inline std::string errno_text(int error) { return std::generic_category().message(error); }

/// Writes all of `data` to `fd`, retrying short writes and EINTR; throws on any failure.
inline void write_all(int fd, std::string_view data, const std::filesystem::path& path)
{
    while (!data.empty()) {
        const ssize_t written = ::write(fd, data.data(), data.size());
        if (written < 0) {
            if (errno == EINTR) continue;
            throw output_file_error(path, errno_text(errno));
        }
        if (written == 0) throw output_file_error(path, "the system accepted no more bytes");
        data.remove_prefix(static_cast<std::size_t>(written));
    }
}

/// Throws unless `path` is absent or a regular file (never rename over a device or a directory).
inline void require_replaceable(const std::filesystem::path& path)
{
    if (path.empty()) throw output_file_error(path, "the file name is empty");
    std::error_code error;
    const auto status = std::filesystem::status(path, error);
    if (status.type() == std::filesystem::file_type::not_found) return;
    if (error) throw output_file_error(path, error.message());
    if (status.type() != std::filesystem::file_type::regular) throw output_file_error(path, "it exists and is not a regular file");
}

/// A temporary in the target's directory: created exclusively, removed unless released.
class temporary_file {
public:
    explicit temporary_file(const std::filesystem::path& target) : target_(target)
    {
        static std::atomic<unsigned> counter{0};
        const auto directory = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
        for (int attempt = 0; attempt < 100; ++attempt) {
            // Appended piece by piece: g++ 12's -Wrestrict misfires on "." + std::string&& when inlined.
            std::string name = ".";
            name += target.filename().string();
            name += ".tmp.";
            name += std::to_string(::getpid());
            name += '.';
            name += std::to_string(counter.fetch_add(1));
            path_ = directory / name;
            fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // the umask applies
            if (fd_ >= 0) return;
            if (errno != EEXIST) throw output_file_error(target, "cannot create a file in its directory: " + errno_text(errno));
        }
        throw output_file_error(target, "no free temporary name in its directory");
    }
    temporary_file(const temporary_file&) = delete;
    temporary_file& operator=(const temporary_file&) = delete;
    ~temporary_file()
    {
        if (fd_ >= 0) ::close(fd_);
        if (!committed_) ::unlink(path_.c_str());
    }

    [[nodiscard]] int fd() const { return fd_; }
    [[nodiscard]] const std::filesystem::path& path() const { return path_; }

    /// fsync, close (both checked), then rename over the target.
    void commit()
    {
        flush();
        rename_over_target();
    }
    /// fsync and close, both checked: after this the data is on disk (a full disk fails here).
    void flush()
    {
        if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS)  // EINVAL: the file system cannot sync; nothing lost
            throw output_file_error(target_, errno_text(errno));
        const int fd = fd_;
        fd_ = -1;
        if (::close(fd) != 0) throw output_file_error(target_, errno_text(errno));
    }
    /// Renames the flushed temporary over the target (a rename takes no space).
    void rename_over_target()
    {
        if (::rename(path_.c_str(), target_.c_str()) != 0) throw output_file_error(target_, errno_text(errno));
        committed_ = true;
    }

private:
    std::filesystem::path target_, path_;
    int fd_ = -1;
    bool committed_ = false;
};

} // namespace detail

/// Replaces (or creates) `path` with exactly `contents`, or throws output_file_error and leaves it untouched.
inline void write_file_atomically(const std::filesystem::path& path, std::string_view contents)
{
    detail::require_replaceable(path);
    detail::temporary_file temporary(path);
    detail::write_all(temporary.fd(), contents, path);
    temporary.commit();
}

/// Several files written together: every one is written and flushed to a temporary first, and only
/// then renamed over its target, so a failure while writing (a full disk) replaces none of them
/// (a run's JSON and its Markdown report are both there or neither is).
inline void write_files_together(const std::vector<std::pair<std::filesystem::path, std::string_view>>& files)
{
    for (const auto& [path, contents] : files) detail::require_replaceable(path);
    std::vector<std::unique_ptr<detail::temporary_file>> temporaries;
    for (const auto& [path, contents] : files) {
        temporaries.push_back(std::make_unique<detail::temporary_file>(path));
        detail::write_all(temporaries.back()->fd(), contents, path);
    }
    for (auto& t : temporaries) t->flush();
    for (auto& t : temporaries) t->rename_over_target();
}

/// The same for contents made in pieces: write(put) calls put(piece) for each piece, in order, and
/// each goes to the file as it comes (a document too large to hold as one string).
template <class Writer>
void write_file_atomically_in_pieces(const std::filesystem::path& path, Writer&& write)
{
    detail::require_replaceable(path);
    detail::temporary_file temporary(path);
    write([&](std::string_view piece) { detail::write_all(temporary.fd(), piece, path); });
    temporary.commit();
}

/// The same for a file written by other code that takes a path (a PNG encoder, say):
/// write(temporary_path) must create the whole file there, throwing on failure.
template <class Writer>
void write_file_atomically_with(const std::filesystem::path& path, Writer&& write)
{
    detail::require_replaceable(path);
    detail::temporary_file temporary(path);
    try {
        write(temporary.path());
    } catch (const std::exception& e) {  // its message names the temporary: name the target too
        throw output_file_error(path, e.what());
    }
    // The writer reopened the file by name; the descriptor still refers to it, so fsync covers its data.
    temporary.commit();
}

} // namespace qkov::io
