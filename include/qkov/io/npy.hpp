// Reading NumPy .npy files (format versions 1.0, 2.0 and 3.0) into doubles, in C order.
//
// Supported element types: little-endian float16 ('<f2'), float32 ('<f4'), float64 ('<f8'), and
// bfloat16 stored as its bit pattern in uint16 ('<u2'), which is how bf16 tensors are usually
// saved since NumPy has no bfloat16: the caller says so with npy_options::uint16_is_bf16 (a
// '<u2' file is never guessed to be bf16). fortran_order files are reordered into C order.
//
// Every problem is an npy_error naming the file and what is wrong: a bad magic string, an
// unsupported version, a malformed header, an unsupported dtype, a truncated or overlong data
// section, a NaN or infinite value (with its index), or a shape other than the one expected.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "qkov/io/npy_header.hpp"
#include "qkov/scalar/narrow_float.hpp"

namespace qkov::io {

class npy_error : public std::runtime_error {
public:
    npy_error(const std::string& path, const std::string& what) : std::runtime_error(path + ": " + what) {}
};

struct npy_options {
    bool uint16_is_bf16 = false;  ///< read '<u2' as bfloat16 bit patterns
};

struct npy_array {
    std::string path;
    std::string dtype;               ///< 'float16', 'float32', 'float64' or 'bfloat16'
    std::vector<std::size_t> shape;  ///< empty for a 0-d array
    std::vector<double> values;      ///< C order (row-major), every value finite

    [[nodiscard]] std::string shape_string() const
    {
        std::string s = "(";
        for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
        return s + (shape.size() == 1 ? ",)" : ")");
    }
};

namespace detail {

inline std::uint32_t npy_little_endian(const unsigned char* p, std::size_t bytes)
{
    std::uint32_t v = 0;
    for (std::size_t k = bytes; k-- > 0;) v = (v << 8) | p[k];
    return v;
}

} // namespace detail

/// Reads a whole .npy file. Throws npy_error on anything it cannot read faithfully. Only regular
/// files are read (a FIFO would block, /dev/zero never ends), the header is parsed before any data
/// is read, and the data section must be exactly as long as the header's shape says, checked
/// against the file's size before anything is allocated.
inline npy_array read_npy(const std::string& path, const npy_options& options = {})
{
    std::error_code status_error;
    const auto status = std::filesystem::status(path, status_error);
    if (status.type() == std::filesystem::file_type::not_found) throw npy_error(path, "cannot open the file: no such file");
    if (status_error) throw npy_error(path, "cannot open the file: " + status_error.message());
    if (status.type() != std::filesystem::file_type::regular)
        throw npy_error(path, "not a regular file (a device, FIFO or directory cannot be read as .npy)");
    const std::uintmax_t file_bytes = std::filesystem::file_size(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw npy_error(path, "cannot open the file");
    auto read_exactly = [&](unsigned char* out, std::size_t n, const char* what) {
        in.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(n));
        if (static_cast<std::size_t>(in.gcount()) != n) throw npy_error(path, std::string("truncated ") + what);
    };

    static constexpr unsigned char magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    unsigned char preamble[8] = {};
    in.read(reinterpret_cast<char*>(preamble), sizeof preamble);
    if (in.gcount() != sizeof preamble || std::memcmp(preamble, magic, sizeof magic) != 0)
        throw npy_error(path, "not a .npy file (the magic string \\x93NUMPY is missing)");
    const unsigned major = preamble[6], minor = preamble[7];
    if (major < 1 || major > 3 || minor != 0)
        throw npy_error(path, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                                  " (numpy writes 1.0, 2.0 and 3.0)");
    const std::size_t length_bytes = major == 1 ? 2 : 4;
    unsigned char length[4] = {};
    read_exactly(length, length_bytes, "header");
    const std::size_t header_length = detail::npy_little_endian(length, length_bytes);
    // numpy refuses headers above 10000 bytes by default (max_header_size); so does this reader.
    if (header_length > 10000) throw npy_error(path, "the header declares " + std::to_string(header_length) + " bytes (at most 10000)");
    const std::size_t data_offset = 8 + length_bytes + header_length;
    if (file_bytes < data_offset)
        throw npy_error(path, "truncated header: it declares " + std::to_string(header_length) + " bytes, the file has " +
                                  std::to_string(file_bytes - std::min<std::uintmax_t>(file_bytes, 8 + length_bytes)));
    std::string header(header_length, '\0');
    read_exactly(reinterpret_cast<unsigned char*>(header.data()), header_length, "header");

    npy_header parsed;
    try {
        parsed = parse_npy_header(header);
    } catch (const std::runtime_error& e) {
        throw npy_error(path, e.what());
    }
    npy_array array;
    array.path = path;
    const std::string& descr = parsed.descr;
    std::size_t item_size = 0;
    if (descr == "<f2") array.dtype = "float16", item_size = 2;
    else if (descr == "<f4") array.dtype = "float32", item_size = 4;
    else if (descr == "<f8") array.dtype = "float64", item_size = 8;
    else if (descr == "<u2" && options.uint16_is_bf16) array.dtype = "bfloat16", item_size = 2;
    else if (descr == "<u2")
        throw npy_error(path, "dtype '<u2' (uint16): if it holds bfloat16 bit patterns, say so (bf16 option); integers are not supported");
    else
        throw npy_error(path, "unsupported dtype '" + descr + "': expected '<f2', '<f4', '<f8' (little-endian floats) or '<u2' as bfloat16");
    const bool fortran_order = parsed.fortran_order;
    array.shape = parsed.shape;
    std::size_t count = 1;
    for (std::size_t n : array.shape) {
        if (n != 0 && count > SIZE_MAX / n / item_size) throw npy_error(path, "shape " + array.shape_string() + " is too large");
        count *= n;
    }
    const std::uintmax_t data_bytes = file_bytes - data_offset;
    if (data_bytes != count * item_size)
        throw npy_error(path, std::string(data_bytes < count * item_size ? "truncated data" : "unexpected bytes after the data") +
                                  ": shape " + array.shape_string() + " of " + descr + " needs " + std::to_string(count * item_size) +
                                  " bytes, the file has " + std::to_string(data_bytes));
    // The size is now the file's own: allocating it is bounded by what is on disk.
    std::vector<unsigned char> bytes(count * item_size);
    read_exactly(bytes.data(), bytes.size(), "data (the file changed while it was read)");

    array.values.resize(count);
    const unsigned char* data = bytes.data();
    for (std::size_t k = 0; k < count; ++k) {
        const unsigned char* p = data + k * item_size;
        double v = 0;
        if (descr == "<f8") {
            std::uint64_t u = 0;
            for (std::size_t b = 8; b-- > 0;) u = (u << 8) | p[b];
            std::memcpy(&v, &u, sizeof v);
        } else if (descr == "<f4") {
            const std::uint32_t u = detail::npy_little_endian(p, 4);
            float f;
            std::memcpy(&f, &u, sizeof f);
            v = f;
        } else if (descr == "<f2") {
            v = fp16::from_bits(static_cast<std::uint16_t>(detail::npy_little_endian(p, 2))).to_float();
        } else {
            v = bf16::from_bits(static_cast<std::uint16_t>(detail::npy_little_endian(p, 2))).to_float();
        }
        if (!std::isfinite(v)) throw npy_error(path, (std::isnan(v) ? "NaN" : "infinite value") + std::string(" at flat index ") + std::to_string(k));
        array.values[k] = v;
    }
    if (fortran_order && array.shape.size() > 1) {
        // Element with C index (i_0, ..., i_{r-1}) sits at Fortran offset sum i_j * prod_{k<j} n_k.
        std::vector<double> c_order(count);
        std::vector<std::size_t> index(array.shape.size(), 0);
        for (std::size_t flat = 0; flat < count; ++flat) {
            std::size_t offset = 0, stride = 1;
            for (std::size_t j = 0; j < index.size(); ++j) {
                offset += index[j] * stride;
                stride *= array.shape[j];
            }
            c_order[flat] = array.values[offset];
            for (std::size_t j = index.size(); j-- > 0;) {  // next C index: last dimension fastest
                if (++index[j] < array.shape[j]) break;
                index[j] = 0;
            }
        }
        array.values = std::move(c_order);
    }
    return array;
}

/// Throws unless the array has exactly this shape; `what` names the tensor's role in the message.
inline void require_shape(const npy_array& array, const std::vector<std::size_t>& expected, const std::string& what)
{
    if (array.shape == expected) return;
    npy_array wanted;
    wanted.shape = expected;
    throw npy_error(array.path, what + " must have shape " + wanted.shape_string() + ", found " + array.shape_string());
}

} // namespace qkov::io
