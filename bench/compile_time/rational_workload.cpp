// Compile-time cost of the exact scalars: an N x N rational matrix product and inverse evaluated
// in a static_assert, with the integer type chosen by -DQKOV_BENCH_INTEGER=1 (int64), 2 (__int128)
// or 3 (Boost checked_int256). Timed by bench/compile_time/run.sh.
#include "qkov/matrix/elimination.hpp"
#include "qkov/matrix/random_integer_matrix.hpp"
#include "qkov/scalar/boost_integer.hpp"
#include "qkov/scalar/rational.hpp"

#if QKOV_BENCH_INTEGER == 1
using Q = qkov::rational64;
#elif QKOV_BENCH_INTEGER == 2
using Q = qkov::rational128;
#else
using Q = qkov::rational256;
#endif

#if QKOV_BENCH_N > 0  // N = 0 measures parsing the headers alone
constexpr std::size_t N = QKOV_BENCH_N;
constexpr auto a = qkov::random_integer_matrix<Q, N, N>(1, -3, 3) + qkov::matrix<Q, N, N>::identity() * Q(3 * N);
constexpr auto b = qkov::random_integer_matrix<Q, N, N>(2, -3, 3);
static_assert(a * qkov::inverse(a) == qkov::matrix<Q, N, N>::identity());
static_assert(!(a * b == b * a));
#endif
