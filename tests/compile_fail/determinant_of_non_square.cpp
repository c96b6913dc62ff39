// expect-error-gcc: shapes_must_fit<qkov::op::square, qkov::shape<2, 3>, qkov::shape<2, 3>, false>
// expect-error-clang: qkov::shapes_must_fit<qkov::op::square, qkov::shape<2, 3>, qkov::shape<2, 3>, false>
// expect-error-clang: matrix shapes do not fit this operation
#include "qkov/matrix/elimination.hpp"
#include "qkov/scalar/rational.hpp"
auto bad = qkov::determinant(qkov::matrix<qkov::rational64, 2, 3>{});
