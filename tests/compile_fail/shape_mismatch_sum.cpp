// expect-error: shapes_must_fit<qkov::op::sum, qkov::shape<2, 3>, qkov::shape<3, 2>, false>
#include "qkov/matrix/matrix.hpp"
auto bad = qkov::matrix<int, 2, 3>{} + qkov::matrix<int, 3, 2>{};
