// Uses the installed headers at compile time and at run time.
#include <iostream>

#include "qkov/matrix/elimination.hpp"
#include "qkov/scalar/rational.hpp"

int main()
{
    using qkov::rational64;
    constexpr auto m = qkov::matrix<rational64, 2, 2>::from_rows({{rational64(1, 2), rational64(1)}, {rational64(3), rational64(4)}});
    static_assert(qkov::determinant(m) == rational64(-1));
    const auto inv = qkov::inverse(m);
    const bool ok = m * inv == qkov::matrix<rational64, 2, 2>::identity();
    std::cout << (ok ? "consumer: ok\n" : "consumer: WRONG\n");
    return ok ? 0 : 1;
}
