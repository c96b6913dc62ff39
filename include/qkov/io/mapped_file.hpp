// A read-only memory map of a whole regular file.
//
// Model files are large and read once: mapping them costs no copy and lets the page cache serve
// the bytes, so a reader touches only the tensors it uses. Devices, FIFOs and directories are
// refused before they are opened for reading (a FIFO would block, /dev/zero never ends).
// The map is MAP_PRIVATE and PROT_READ: nothing written through it can reach the file. Its
// descriptor stays open in a mapped_file_watch, which the tensors read from the map share, so that
// a file truncated after it was mapped is an error when its bytes are read, not SIGBUS.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <utility>

#include "qkov/io/mapped_file_watch.hpp"
#include "qkov/io/model_file_error.hpp"

namespace qkov::io {

class mapped_file {
public:
    explicit mapped_file(const std::filesystem::path& path) : path_(path.string())
    {
        std::error_code ec;
        const auto status = std::filesystem::status(path, ec);
        if (ec || !std::filesystem::exists(status)) throw model_file_error(path_, "no such file");
        if (status.type() != std::filesystem::file_type::regular)
            throw model_file_error(path_, "not a regular file (a device, FIFO or directory cannot be read as a model file)");
        const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) throw model_file_error(path_, "cannot open: " + std::generic_category().message(errno));
        struct stat st {};
        if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            ::close(fd);
            throw model_file_error(path_, "not a regular file");
        }
        size_ = static_cast<std::size_t>(st.st_size);
        if (size_ > 0) {
            void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
            if (p == MAP_FAILED) {
                const int error = errno;
                ::close(fd);
                throw model_file_error(path_, "cannot map: " + std::generic_category().message(error));
            }
            data_ = static_cast<const std::byte*>(p);
        }
        try {
            watch_ = std::make_shared<const mapped_file_watch>(fd, path_, size_);  // owns the descriptor from here
        } catch (...) {
            ::close(fd);
            unmap();
            throw;
        }
    }
    mapped_file(const mapped_file&) = delete;
    mapped_file& operator=(const mapped_file&) = delete;
    mapped_file(mapped_file&& other) noexcept
        : path_(std::move(other.path_)), data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)), watch_(std::move(other.watch_))
    {
    }
    mapped_file& operator=(mapped_file&& other) noexcept
    {
        if (this != &other) {
            unmap();
            path_ = std::move(other.path_);
            data_ = std::exchange(other.data_, nullptr);
            size_ = std::exchange(other.size_, 0);
            watch_ = std::move(other.watch_);
        }
        return *this;
    }
    ~mapped_file() { unmap(); }

    [[nodiscard]] std::span<const std::byte> bytes() const { return {data_, size_}; }
    [[nodiscard]] std::size_t size() const { return size_; }
    [[nodiscard]] const std::string& path() const { return path_; }
    /// What a tensor read from this map keeps to check the file before its bytes are read.
    [[nodiscard]] const std::shared_ptr<const mapped_file_watch>& watch() const { return watch_; }

private:
    void unmap() noexcept
    {
        if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
        data_ = nullptr;
    }

    std::string path_;
    const std::byte* data_ = nullptr;
    std::size_t size_ = 0;
    std::shared_ptr<const mapped_file_watch> watch_;
};

} // namespace qkov::io
