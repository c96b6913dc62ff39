// Matrix products of the xtensor layer, all through BLAS (xtensor-blas's cxxblas::gemm).
//
// Tensors are row-major xt::xtensor<T, 2>. gemm_rows multiplies row blocks of contiguous
// tensors in place, with no copies, so that a causal score matrix can be filled block by block
// (only the blocks on or below the diagonal are computed: half the work of the full product).
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

#include <xtensor-blas/xblas.hpp>
#include <xtensor/xtensor.hpp>

#include "qkov/numeric/large_page_allocator.hpp"
#include "qkov/numeric/parallel_blocks.hpp"
#include "qkov/numeric/shape_errors.hpp"

namespace qkov::numeric {

/// Row-major matrices of the layer; large ones live on huge pages (large_page_allocator.hpp).
template <class T>
using tensor2 = xt::xtensor<T, 2, xt::layout_type::row_major, large_page_allocator<T>>;

enum class transposed : bool { no = false, yes = true };

/// C[c0 .., :] = alpha op(A)[a rows] op(B) restricted to the given blocks:
///   rows a_row .. a_row + m - 1 of op(A) (m x k), columns b_col .. b_col + n - 1 of op(B) (k x n),
///   written to C(c_row + i, c_col + j).
/// Only op(A) = A and op(B) = B or B^T are needed by the layer, which keeps the pointer arithmetic simple.
template <class T>
void gemm_block(const tensor2<T>& a, std::size_t a_row, std::size_t m, const tensor2<T>& b, transposed b_transposed,
                std::size_t b_col, std::size_t n, T alpha, tensor2<T>& c, std::size_t c_row, std::size_t c_col)
{
    const std::size_t k = a.shape()[1];
    const bool bt = b_transposed == transposed::yes;
    require_shape((bt ? b.shape()[1] : b.shape()[0]) == k, "the right factor of a product", b,
                  "its inner dimension must equal the left factor's " + std::to_string(k) + " columns");
    require_shape(a_row + m <= a.shape()[0], "the left factor of a product", a, "too few rows for the block");
    require_shape(b_col + n <= (bt ? b.shape()[0] : b.shape()[1]), "the right factor of a product", b, "too small for the block");
    require_shape(c_row + m <= c.shape()[0] && c_col + n <= c.shape()[1], "the product", c, "too small for the block");
    if (m == 0 || n == 0) return;
    if (k == 0) {  // an empty sum: BLAS would be handed a zero leading dimension, which it refuses, leaving C unwritten
        for (std::size_t i = 0; i < m; ++i) std::fill_n(c.data() + (c_row + i) * c.shape()[1] + c_col, n, T(0));
        return;
    }
    using index = xt::blas_index_t;
    const T* b_start = bt ? b.data() + b_col * b.shape()[1] : b.data() + b_col;
    if (m == 1) {  // one row: a matrix-vector product, which BLAS does without gemm's packing and threading set-up
        // row-major B (n x k) times a, or row-major B (k x n) transposed times a
        cxxblas::gemv<index>(cxxblas::StorageOrder::RowMajor, bt ? cxxblas::Transpose::NoTrans : cxxblas::Transpose::Trans,
                             static_cast<index>(bt ? n : k), static_cast<index>(bt ? k : n), alpha, b_start,
                             static_cast<index>(b.shape()[1]), a.data() + a_row * k, index(1), T(0),
                             c.data() + c_row * c.shape()[1] + c_col, index(1));
        return;
    }
    cxxblas::gemm<index>(cxxblas::StorageOrder::RowMajor, cxxblas::Transpose::NoTrans,
                         bt ? cxxblas::Transpose::Trans : cxxblas::Transpose::NoTrans, static_cast<index>(m),
                         static_cast<index>(n), static_cast<index>(k), alpha, a.data() + a_row * k, static_cast<index>(k),
                         b_start, static_cast<index>(b.shape()[1]), T(0), c.data() + c_row * c.shape()[1] + c_col,
                         static_cast<index>(c.shape()[1]));
}

/// An uninitialised rows x cols result; a shape whose size overflows is a named error, not a wrapped allocation.
template <class T>
tensor2<T> allocate_result(std::size_t rows, std::size_t cols, const char* what)
{
    if (cols != 0 && rows > std::size_t(-1) / sizeof(T) / cols)
        throw std::length_error(std::string("qkov: ") + what + " would have " + std::to_string(rows) + " x " + std::to_string(cols) +
                                " entries, more than memory can address");
    return tensor2<T>::from_shape({rows, cols});
}

/// Fewest rows of A per thread in product(): below this a product is not worth splitting.
inline constexpr std::size_t product_rows_per_thread = 64;

/// Writes A op(B) into columns c_col .. of C (all of C's rows), e.g. one head's block of a
/// multi-head output, without a product to copy in. The rows of A are split into one block per
/// worker thread, each a BLAS call on its own thread (parallel_blocks.hpp): on the layer's thin
/// products (d = 64 columns) this was measured faster than handing the whole product to
/// OpenBLAS's own threads.
template <class T>
void product_into(const tensor2<T>& a, const tensor2<T>& b, transposed b_transposed, tensor2<T>& c, std::size_t c_col)
{
    const std::size_t m = a.shape()[0], n = b_transposed == transposed::yes ? b.shape()[0] : b.shape()[1];
    require_shape(c.shape()[0] == m, "the product", c, "must have the left factor's " + std::to_string(m) + " rows");
    const std::size_t blocks = std::clamp<std::size_t>(m / product_rows_per_thread, 1, worker_count());
    const std::size_t rows_per_block = (m + blocks - 1) / blocks;
    for_each_block(blocks, [&](std::size_t block) {
        const std::size_t first = block * rows_per_block;
        gemm_block(a, first, std::min(rows_per_block, m - first), b, b_transposed, 0, n, T(1), c, first, c_col);
    });
}

/// A op(B), a new tensor (product_into all of it).
template <class T>
tensor2<T> product(const tensor2<T>& a, const tensor2<T>& b, transposed b_transposed = transposed::no)
{
    const std::size_t n = b_transposed == transposed::yes ? b.shape()[0] : b.shape()[1];
    tensor2<T> c = allocate_result<T>(a.shape()[0], n, "the product");
    product_into(a, b, b_transposed, c, 0);
    return c;
}

} // namespace qkov::numeric
