// Whether a mapped file still holds the bytes that were mapped, asked before they are read.
//
// A map does not keep its file's size: a file truncated while qkov holds it mapped (rewritten in
// place by a download, cut by a full disk) leaves pages with no bytes behind them, and reading one
// raises SIGBUS, which ends the process (a Python interpreter with it). The descriptor the map was
// made from is kept open, and fstat on it gives the file's size now; a read of a tensor first asks
// (io::read_block), so a shrunk file is an error naming it instead. One fstat per block read: a
// head's weights are a few blocks. A truncation between the question and the read is not caught.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <string>
#include <utility>

#include "qkov/io/model_file_error.hpp"

namespace qkov::io {

class mapped_file_watch {
public:
    /// Takes the descriptor `fd` of `path`, mapped whole at `size` bytes; closes it when destroyed.
    mapped_file_watch(int fd, std::string path, std::size_t size) : fd_(fd), path_(std::move(path)), size_(size) {}
    mapped_file_watch(const mapped_file_watch&) = delete;
    mapped_file_watch& operator=(const mapped_file_watch&) = delete;
    ~mapped_file_watch() { ::close(fd_); }

    /// Throws model_file_error when the file is now shorter than when it was mapped.
    void require_unshrunk() const
    {
        struct stat st {};
        if (::fstat(fd_, &st) != 0) throw model_file_error(path_, "cannot be checked before reading its mapped bytes (fstat failed)");
        if (static_cast<std::size_t>(st.st_size) < size_)
            throw model_file_error(path_, "the file shrank from " + std::to_string(size_) + " to " + std::to_string(st.st_size) +
                                              " bytes while qkov held it open (truncated or rewritten): its weights cannot be read; open the model again");
    }

private:
    int fd_;
    std::string path_;
    std::size_t size_;
};

} // namespace qkov::io
