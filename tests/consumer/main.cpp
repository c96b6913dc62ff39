// Uses the installed headers at compile time and at run time, and qkov::report's libraries.
#include <iostream>

#include "qkov/matrix/elimination.hpp"
#include "qkov/report/line_plot.hpp"
#include "qkov/scalar/rational.hpp"

int main()
{
    using qkov::rational64;
    constexpr auto m = qkov::matrix<rational64, 2, 2>::from_rows({{rational64(1, 2), rational64(1)}, {rational64(3), rational64(4)}});
    static_assert(qkov::determinant(m) == rational64(-1));
    const auto inv = qkov::inverse(m);
    const bool ok = m * inv == qkov::matrix<rational64, 2, 2>::identity();
    // A figure rendered in memory: links libpng and FreeType through qkov::report.
    qkov::report::line_plot plot({.title = "consumer", .width = 320, .height = 240});
    plot.add_series("line", {0.0, 1.0}, {0.0, 1.0});
    const bool drew = plot.render().image.width() == 320;
    std::cout << (ok && drew ? "consumer: ok\n" : "consumer: WRONG\n");
    return ok && drew ? 0 : 1;
}
