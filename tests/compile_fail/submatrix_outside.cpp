// A 3 x 3 block at (2, 0) of a 4 x 4 matrix would need rows 2..4.
// expect-error-gcc: shapes_must_fit<qkov::op::submatrix, qkov::shape<4, 4>, qkov::shape<5, 3>, false>
// expect-error-clang: qkov::shapes_must_fit<qkov::op::submatrix, qkov::shape<4, 4>, qkov::shape<5, 3>, false>
// expect-error-clang: matrix shapes do not fit this operation
#include "qkov/matrix/blocks.hpp"
auto bad = qkov::submatrix<2, 0, 3, 3>(qkov::matrix<int, 4, 4>{});
