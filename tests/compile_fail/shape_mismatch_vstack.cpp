// expect-error-gcc: shapes_must_fit<qkov::op::vstack, qkov::shape<2, 4>, qkov::shape<2, 5>, false>
// expect-error-clang: qkov::shapes_must_fit<qkov::op::vstack, qkov::shape<2, 4>, qkov::shape<2, 5>, false>
// expect-error-clang: matrix shapes do not fit this operation
#include "qkov/matrix/blocks.hpp"
auto bad = qkov::vstack(qkov::matrix<int, 2, 4>{}, qkov::matrix<int, 2, 5>{});
