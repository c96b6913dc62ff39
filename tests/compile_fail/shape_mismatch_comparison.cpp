// expect-error: shapes_must_fit<qkov::op::comparison, qkov::shape<16, 16>, qkov::shape<15, 16>, false>
#include "qkov/matrix/matrix.hpp"
bool bad = qkov::matrix<int, 16, 16>{} == qkov::matrix<int, 15, 16>{};
