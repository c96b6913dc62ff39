// R6 at length L: the previous-token head's full causal pattern (projections W_q, W_k, RoPE on
// queries and keys, causal scores, softmax) with qkov's run-time layer. Building the weights and
// the tokens is not timed; one untimed pass warms up, then one pass is timed.
// Prints: "<seconds> <sum over rows of the weight on the previous token>" (the sum lets run.sh
// check that qkov and numpy computed the same pattern).
//   qkov_r6 L f64|f32 [alpha]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "experiments/previous_token_head.hpp"
#include "qkov/numeric/softmax.hpp"

template <class T>
int run(std::size_t length, double alpha)
{
    using namespace qkov;
    const auto head = experiments::make_previous_token_weights<T>(alpha);
    const auto tokens = experiments::tokens_with_constant_coordinate<T>(length);
    auto pattern_of = [&] {
        auto pattern = experiments::previous_token_scores(tokens, head);
        numeric::softmax_in_place(pattern, numeric::masking::causal);
        return pattern;
    };
    (void)pattern_of();
    const auto start = std::chrono::steady_clock::now();
    const auto pattern = pattern_of();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double previous = 0;
    for (std::size_t i = 1; i < length; ++i) previous += double(pattern(i, i - 1));
    std::printf("%.6f %.6f\n", seconds, previous);
    return 0;
}

int main(int argc, char** argv)
{
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
