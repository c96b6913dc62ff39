// False: "entry (0.5, 0) of the 2 x 2 identity is 1" (there is no such entry). A floating-point index
// is refused by a deleted overload instead of being cut to 0.
// expect-error-gcc: use of deleted function
// expect-error-gcc: operator()(I, J) const [with I = double
// expect-error-clang: call to deleted function call operator
// expect-error-clang: candidate function [with I = double, J = int] has been explicitly deleted
#include "qkov/matrix/matrix.hpp"
constexpr auto identity = qkov::matrix<int, 2, 2>::identity();
static_assert(identity(0.5, 0) == 1);
