// expect-error-gcc: shapes_must_fit<qkov::op::comparison, qkov::shape<16, 16>, qkov::shape<15, 16>, false>
// expect-error-clang: qkov::shapes_must_fit<qkov::op::comparison, qkov::shape<16, 16>, qkov::shape<15, 16>, false>
// expect-error-clang: matrix shapes do not fit this operation
#include "qkov/matrix/matrix.hpp"
bool bad = qkov::matrix<int, 16, 16>{} == qkov::matrix<int, 15, 16>{};
