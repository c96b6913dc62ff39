// R6 at length L: the previous-token head's full causal pattern (projections W_q, W_k, RoPE on
// queries and keys, causal scores, softmax) with qkov's run-time layer. Building the weights and
// the tokens is not timed; one untimed pass warms up, then one pass is timed.
// Prints: "<seconds> <sum over rows of the weight on the previous token>" (the sum lets run.sh
// check that qkov and numpy computed the same pattern).
//   qkov_r6 L f64|f32 [alpha]
// The GEMM limit of the machine: one L x 768 by 768 x L product by the same BLAS alone (its own
// threads), timed after one warm-up product; prints "<seconds> <GFLOP/s>".
//   qkov_r6 gemm L f64|f32
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "qkov/experiments/seed_head_tensors.hpp"

template <class T>
int run(std::size_t length, double alpha)
{
    using namespace qkov;
    const auto head = experiments::make_previous_token_weights<T>(alpha);
    const auto tokens = experiments::tokens_with_constant_coordinate<T>(length);
    auto pattern_of = [&] { return experiments::previous_token_pattern(tokens, head); };
    (void)pattern_of();
    const auto start = std::chrono::steady_clock::now();
    const auto pattern = pattern_of();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double previous = 0;
    for (std::size_t i = 1; i < length; ++i) previous += double(pattern(i, i - 1));
    std::printf("%.6f %.6f\n", seconds, previous);
    return 0;
}

template <class T>
int gemm_limit(std::size_t length)
{
    using namespace qkov::numeric;
    constexpr std::size_t inner = 768;
    tensor2<T> a = tensor2<T>::from_shape({length, inner}), b = tensor2<T>::from_shape({inner, length});
    for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = T(std::sin(double(i)));
    for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = T(std::cos(double(i)));
    // BLAS alone, with its own threads (product() would split the rows over the layer's threads).
    tensor2<T> c = tensor2<T>::from_shape({length, length});
    auto gemm = [&] { gemm_block(a, 0, length, b, transposed::no, 0, length, T(1), c, 0, 0); };
    gemm();
    const auto start = std::chrono::steady_clock::now();
    gemm();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%.6f %.2f\n", seconds, 2.0 * double(length) * double(length) * double(inner) / seconds * 1e-9);
    return c(0, 0) == T(12345) ? 1 : 0;  // keeps the product observable
}

int main(int argc, char** argv)
{
    if (argc == 4 && std::string(argv[1]) == "gemm") {
        const std::size_t length = std::strtoul(argv[2], nullptr, 10);
        if (std::string(argv[3]) == "f64") return gemm_limit<double>(length);
        if (std::string(argv[3]) == "f32") return gemm_limit<float>(length);
    }
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s L f64|f32 [alpha]\n", argv[0]);
        return 2;
    }
    const std::size_t length = std::strtoul(argv[1], nullptr, 10);
    const double alpha = argc > 3 ? std::atof(argv[3]) : 100.0;
    const std::string dtype = argv[2];
    if (length < 2) {
        std::fprintf(stderr, "%s: L must be at least 2 (got %s)\n", argv[0], argv[1]);
        return 2;
    }
    if (dtype == "f64") return run<double>(length, alpha);
    if (dtype == "f32") return run<float>(length, alpha);
    std::fprintf(stderr, "%s: dtype must be f64 or f32 (got %s)\n", argv[0], argv[2]);
    return 2;
}
