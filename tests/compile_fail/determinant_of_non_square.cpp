// expect-error: shapes_must_fit<qkov::op::square, qkov::shape<2, 3>, qkov::shape<2, 3>, false>
#include "qkov/matrix/elimination.hpp"
#include "qkov/scalar/rational.hpp"
auto bad = qkov::determinant(qkov::matrix<qkov::rational64, 2, 3>{});
