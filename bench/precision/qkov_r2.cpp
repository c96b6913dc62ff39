// The 100-digit R2 residual max |R_m^T R_n - R_{n-m}| (max-abs entry) for d = 128 over the (m, n)
// pairs of a file, through the library's rope_rotation / numeric_angles / standard_theta, and
// in the same run the floor: the same 3 x 64 100-digit cos/sin evaluations alone, which any
// implementation must pay. Prints one JSON line.
//   qkov_r2 <pairs file: "m n" per line> <cpp_bin_float|mpfr>
#include <boost/multiprecision/cpp_bin_float.hpp>
#ifdef QKOV_HAVE_MPFR
#include "qkov/precision/mpfr.hpp"
#endif
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "qkov/circuits/rope.hpp"

namespace {

constexpr std::size_t d = 128;
constexpr qkov::rope_layout L = qkov::interleaved_layout(d);

template <class T>
int run(const std::vector<std::pair<std::int64_t, std::int64_t>>& pairs, const std::string& backend)
{
    using R = qkov::rope_rotation<T, L>;
    using clock = std::chrono::steady_clock;
    const qkov::numeric_angles<T, d / 2> angles{qkov::standard_theta<T, d / 2>(10000.0)};

    // The residual: three rotations per pair, one block-wise product, one comparison.
    const auto start = clock::now();
    T worst(0), difference;
    R r_m, r_n, r_relative, product;
    for (const auto& [m, n] : pairs) {
        r_m = R::at(angles, m);
        r_n = R::at(angles, n);
        r_relative = R::at(angles, n - m);
        product = transpose(r_m) * r_n;
        for (std::size_t l = 0; l < R::pairs; ++l)
            for (std::size_t i = 0; i < 2; ++i)
                for (std::size_t j = 0; j < 2; ++j) {
                    difference = product.block_at(l)(i, j);
                    difference -= r_relative.block_at(l)(i, j);
                    if (difference < 0) difference = -difference;
                    if (worst < difference) worst = difference;
                }
    }
    const double residual_seconds = std::chrono::duration<double>(clock::now() - start).count();

    // The floor: only the cos/sin evaluations of the same three angles per pair and pair l.
    const auto floor_start = clock::now();
    T sink(0);
    for (const auto& [m, n] : pairs)
        for (std::int64_t p : {m, n, n - m})
            for (std::size_t l = 0; l < d / 2; ++l) {
                const auto cs = angles.cos_sin(l, p);
                sink += cs.first;
                sink += cs.second;
            }
    const double floor_seconds = std::chrono::duration<double>(clock::now() - floor_start).count();

    std::printf("{\"backend\": \"%s\", \"pairs\": %zu, \"max_residual\": %.3e, \"seconds\": %.6f, \"floor_seconds\": %.6f, "
                "\"sink\": %.3f}\n",
                backend.c_str(), pairs.size(), static_cast<double>(worst), residual_seconds, floor_seconds,
                static_cast<double>(sink));
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::cerr << "usage: qkov_r2 <pairs file> <cpp_bin_float|mpfr>\n";
        return 2;
    }
    std::ifstream in(argv[1]);
    if (!in) {
        std::cerr << "qkov_r2: cannot read " << argv[1] << "\n";
        return 2;
    }
    std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
    for (std::int64_t m, n; in >> m >> n;) pairs.emplace_back(m, n);
    const std::string backend = argv[2];
    if (backend == "cpp_bin_float") return run<boost::multiprecision::cpp_bin_float_100>(pairs, backend);
#ifdef QKOV_HAVE_MPFR
    if (backend == "mpfr") return run<qkov::precision::mpfr_100>(pairs, backend);
#endif
    std::cerr << "qkov_r2: unknown or unavailable backend " << backend << "\n";
    return 2;
}
