// Reading a rectangular block of a stored tensor as doubles, straight from the mapped bytes into
// its destination, with every value checked for NaN/Inf.
//
// Opening a model should cost what reading its bytes costs: the dtype is dispatched once per
// block (with_decoder), each stored row is one tight loop that converts, checks and stores, and
// the destination strides let a caller write the block transposed (a Conv1D [in, out] slice into
// qkov's [out, in] head matrix) without a transposed copy of the whole tensor. The finiteness
// check rides along as a sum of v * 0, which stays 0 until a NaN or an infinity passes; only then
// is the tensor scanned again, in storage order, so the error names its first bad element
// whichever block tripped over it.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>

#include "qkov/io/model_file_error.hpp"
#include "qkov/io/tensor_view.hpp"

namespace qkov::io {

/// Where block reads put element (i, j) of the block: out[i * row_stride + j * column_stride].
struct block_destination {
    double* out = nullptr;
    std::size_t row_stride = 0, column_stride = 1;
};

/// The tensor's rows and columns: [n] counts as one row of n, [r, c] as itself.
[[nodiscard]] inline std::size_t stored_rows(const tensor_view& t) { return t.shape.size() == 2 ? t.shape[0] : 1; }
[[nodiscard]] inline std::size_t stored_columns(const tensor_view& t) { return t.shape.empty() ? 1 : t.shape.back(); }

/// Throws the error for the first NaN or infinity of t in storage order (the caller saw one).
[[noreturn]] inline void throw_first_non_finite(const tensor_view& t)
{
    std::size_t i = 0;
    double v = 0;
    with_decoder(t.dtype, [&](auto decoder) {
        for (; i < t.count; ++i)
            if (v = decoder.at(t.bytes.data(), i); !std::isfinite(v)) return;
    });
    if (i == t.count) throw model_file_error(t.file, t.name, "a value failed the finiteness check but none is NaN or infinite");
    std::string where = std::to_string(i);
    if (t.shape.size() == 2) where = "[" + std::to_string(i / t.shape[1]) + ", " + std::to_string(i % t.shape[1]) + "]";
    throw model_file_error(t.file, t.name, (std::isnan(v) ? "NaN" : "infinite value") + std::string(" at index ") + where);
}

/// Rows [row, row + rows) and columns [column, column + columns) of t (1-D: one row) into to.
/// The block must lie inside the tensor's shape (checked: a violation is a reader bug).
inline void read_block(const tensor_view& t, std::size_t row, std::size_t rows, std::size_t column, std::size_t columns, block_destination to)
{
    const std::size_t width = stored_columns(t);
    if (row + rows > stored_rows(t) || column + columns > width || row + rows < row || column + columns < column)
        throw model_file_error(t.file, t.name, "block [" + std::to_string(row) + " + " + std::to_string(rows) + ", " + std::to_string(column) + " + " +
                                                   std::to_string(columns) + "] lies outside the tensor");
    if (t.watch) t.watch->require_unshrunk();  // a shrunk file's pages would SIGBUS (mapped_file_watch.hpp)
    with_decoder(t.dtype, [&](auto decoder) {
        const std::byte* base = t.bytes.data();
        for (std::size_t i = 0; i < rows; ++i) {
            const std::size_t first = (row + i) * width + column;
            double* out = to.out + i * to.row_stride;
            double poison = 0;  // v * 0 is NaN exactly when v is NaN or infinite
            for (std::size_t j = 0; j < columns; ++j) {
                const double v = decoder.at(base, first + j);
                poison += v * 0.0;
                out[j * to.column_stride] = v;
            }
            if (std::isnan(poison)) throw_first_non_finite(t);
        }
    });
}

} // namespace qkov::io
