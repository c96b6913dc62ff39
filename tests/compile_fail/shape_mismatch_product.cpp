// A 3 x 4 matrix times a 5 x 2 matrix: the diagnostic names the operation and both shapes.
// expect-error-gcc: shapes_must_fit<qkov::op::product, qkov::shape<3, 4>, qkov::shape<5, 2>, false>
// expect-error-clang: qkov::shapes_must_fit<qkov::op::product, qkov::shape<3, 4>, qkov::shape<5, 2>, false>
// expect-error-clang: matrix shapes do not fit this operation
#include "qkov/matrix/matrix.hpp"
auto bad = qkov::matrix<int, 3, 4>{} * qkov::matrix<int, 5, 2>{};
