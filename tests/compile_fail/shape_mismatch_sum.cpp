// expect-error-gcc: shapes_must_fit<qkov::op::sum, qkov::shape<2, 3>, qkov::shape<3, 2>, false>
// expect-error-clang: qkov::shapes_must_fit<qkov::op::sum, qkov::shape<2, 3>, qkov::shape<3, 2>, false>
// expect-error-clang: matrix shapes do not fit this operation
#include "qkov/matrix/matrix.hpp"
auto bad = qkov::matrix<int, 2, 3>{} + qkov::matrix<int, 3, 2>{};
