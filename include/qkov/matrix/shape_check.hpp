// Compile-time shape checks whose diagnostics name the operation and both shapes.
//
// A static_assert message must be a string literal in C++20, so it cannot print numbers.
// Instead the failing assertion sits inside shapes_must_fit<Operation, shape<R1,C1>, shape<R2,C2>>;
// compilers print the instantiation that failed, e.g.
//   In instantiation of 'struct qkov::shapes_must_fit<qkov::op::product, qkov::shape<15, 16>, qkov::shape<15, 16>, false>'
//   error: static assertion failed: qkov: matrix shapes do not fit ...
// which names both shapes, followed by the line of user code that asked for it.
#pragma once

#include <cstddef>

namespace qkov {

template <std::size_t Rows, std::size_t Cols>
struct shape {
    static constexpr std::size_t rows = Rows;
    static constexpr std::size_t cols = Cols;
};

/// Tags naming the operation in shape diagnostics.
namespace op {
struct product {};     ///< left.cols must equal right.rows
struct sum {};         ///< + and -: equal shapes
struct comparison {};  ///< ==: equal shapes
struct hstack {};      ///< equal row counts
struct vstack {};      ///< equal column counts
struct submatrix {};   ///< the block (second shape, at the offset) must lie inside the first
struct square {};      ///< the operation needs a square matrix
} // namespace op

template <class Operation, class LeftShape, class RightShape, bool Fits>
struct shapes_must_fit {
    static_assert(Fits,
                  "qkov: matrix shapes do not fit this operation; the operation and both shapes "
                  "are the template arguments of shapes_must_fit in the instantiation above");
    static constexpr bool value = Fits;
};

} // namespace qkov
