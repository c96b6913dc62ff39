// Every attention head of a model as float64 matrices through qkov's head model (the reader
// `qkov inspect` uses), layer by layer. Prints "<seconds from opening to the last head> <checksum>",
// the checksum being the sum of squares of every head's W_q, W_k, W_v, W_o, b_q, b_k, b_v plus each
// layer's output bias (numpy_extract.py computes the same).
#include <chrono>
#include <cstdio>
#include <exception>

#include "qkov/model/layer_memory.hpp"
#include "qkov/model/open_model.hpp"

namespace {

double sum_of_squares(const auto& m)
{
    double s = 0;
    for (const double x : m) s += x * x;
    return s;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: qkov_extract MODEL\n");
        return 2;
    }
    try {
        qkov::model::reuse_freed_layer_memory();  // as qkov inspect does
        const auto start = std::chrono::steady_clock::now();
        const auto model = qkov::model::open_model(argv[1]);
        double checksum = 0;
        for (std::size_t l = 0; l < model.config().layers; ++l) {
            const auto lw = model.layer(l);
            for (const auto& h : lw.heads)
                checksum += sum_of_squares(h.w_q) + sum_of_squares(h.w_k) + sum_of_squares(h.w_v) + sum_of_squares(h.w_o) + sum_of_squares(h.b_q) +
                            sum_of_squares(h.b_k) + sum_of_squares(h.b_v);
            checksum += sum_of_squares(lw.b_o);
        }
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        std::printf("%.6f %.17g\n", elapsed.count(), checksum);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "qkov_extract: %s\n", e.what());
        return 1;
    }
}
