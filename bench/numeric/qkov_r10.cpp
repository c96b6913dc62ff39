// R10 at N tokens: the d0 sweep's attention of the last query (RoPE heads reading coordinates
// d0 .. d-1, d0 in {0, 32, 48, 56, 62}, and the head without RoPE at d0 = 0) with qkov's run-time
// layer (keys of all tokens, the query of the last token only, as numpy_r10.py; qkov stacks the
// six heads' W_K so their keys come from one product, numpy_r10.py multiplies head by head). The tokens are a closed formula (the same in numpy_r10.py, so both compute the same
// numbers): x[i][c] = sin(0.7 (i D + c) + 0.3), the semantic vector s[c] = cos(c) written into the
// last token's coordinates 0 .. d-1 and into coordinates d .. 2d-1 of every other token. Building
// weights and tokens is not timed. The whole sweep runs INNER times after one warm-up pass.
// Prints "<median seconds per sweep> <sum over the six heads of the largest weight>".
//   qkov_r10 N [INNER]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "qkov/experiments/seed_head_tensors.hpp"
#include "qkov/numeric/last_query_weights.hpp"
#include "qkov/numeric/stacked_heads.hpp"

int main(int argc, char** argv)
{
    using namespace qkov;
    constexpr std::size_t D = experiments::seed_residual_width, d = experiments::seed_head_width;
    const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1000;
    const int inner = argc > 2 ? std::atoi(argv[2]) : 21;
    if (n < 2 || inner < 1) {
        std::fprintf(stderr, "usage: %s N [INNER] with N >= 2 and INNER >= 1\n", argv[0]);
        return 2;
    }
    numeric::tensor2<double> tokens = numeric::tensor2<double>::from_shape({n, D});
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < D; ++c) tokens(i, c) = std::sin(0.7 * double(i * D + c) + 0.3);
    for (std::size_t c = 0; c < d; ++c) {
        tokens(n - 1, c) = std::cos(double(c));
        for (std::size_t i = 0; i + 1 < n; ++i) tokens(i, d + c) = std::cos(double(c));
    }
    std::vector<numeric::tensor2<double>> w_q, w_k;
    std::vector<bool> rope;
    for (const std::size_t d0 : {std::size_t(0), d / 2, d - d / 4, d - d / 8, d - 2}) {
        auto head = experiments::semantic_head_tensors(d0 / 2);  // reads the pairs l >= d0 / 2
        w_q.push_back(std::move(head.w_q));
        w_k.push_back(std::move(head.w_k));
        rope.push_back(true);
    }
    auto nope = experiments::semantic_head_tensors(0);
    w_q.push_back(std::move(nope.w_q));
    w_k.push_back(std::move(nope.w_k));
    rope.push_back(false);
    const auto heads = numeric::stack_heads(w_q, w_k, rope);  // weights are built untimed, as in numpy_r10.py
    const auto angles = experiments::seed_angle_table(n);  // numpy_r10.py also tabulates cos and sin untimed
    double check = 0;
    auto sweep = [&] {
        check = 0;
        for (const auto& w : numeric::last_query_weights(tokens, heads, experiments::seed_layout, angles)) check += *std::max_element(w.begin(), w.end());
    };
    sweep();
    std::vector<double> seconds;
    for (int r = 0; r < inner; ++r) {
        const auto start = std::chrono::steady_clock::now();
        sweep();
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::nth_element(seconds.begin(), seconds.begin() + inner / 2, seconds.end());
    std::printf("%.6f %.9f\n", seconds[inner / 2], check);
    return 0;
}
