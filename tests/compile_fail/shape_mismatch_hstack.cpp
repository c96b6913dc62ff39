// expect-error-gcc: shapes_must_fit<qkov::op::hstack, qkov::shape<4, 2>, qkov::shape<5, 2>, false>
// expect-error-clang: qkov::shapes_must_fit<qkov::op::hstack, qkov::shape<4, 2>, qkov::shape<5, 2>, false>
// expect-error-clang: matrix shapes do not fit this operation
#include "qkov/matrix/blocks.hpp"
auto bad = qkov::hstack(qkov::matrix<int, 4, 2>{}, qkov::matrix<int, 5, 2>{});
