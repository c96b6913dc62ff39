// False: "entry (0.5, 0) of the 2 x 2 identity is 1" (there is no such entry). A floating-point index
// is refused by a deleted overload instead of being cut to 0.
// expect-error: use of deleted function
// expect-error: operator()(I, J) const [with I = double
#include "qkov/matrix/matrix.hpp"
constexpr auto identity = qkov::matrix<int, 2, 2>::identity();
static_assert(identity(0.5, 0) == 1);
