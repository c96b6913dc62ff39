// One layer pair's composition (scan/composition.hpp's compose: the pair's product, the d x d
// cores, T3's singular values, the scores and, in float32, their bounds) at Llama-3-8B's shape
// (H = 32 heads in G = 8 key-value groups, d = 128, D = 4,096), both layers' factors made of seeded
// random numbers (the work depends on the values only through the SVDs' iterations). Alternates
// --precision float64 and float32 for REPS rounds on THREADS workers as the scan runs them with
// --threads THREADS (BLAS on one thread a worker: run it with OPENBLAS_NUM_THREADS=1) and prints
// each run's wall time and T3's worker seconds, one line per run:
//   qkov_composition REPS THREADS        (run.sh takes the medians and the ratio)
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <span>

#include "qkov/numeric/parallel_blocks.hpp"
#include "qkov/scan/composition.hpp"

int main(int argc, char** argv)
{
    using namespace qkov::scan;
    const std::size_t H = 32, G = 8, d = 128, D = 4096;
    const int reps = argc > 2 ? std::atoi(argv[1]) : 0, threads = argc > 2 ? std::atoi(argv[2]) : 0;
    if (reps < 1 || threads < 1) {
        std::fprintf(stderr, "qkov_composition REPS THREADS: both at least 1\n");
        return 1;
    }
    qkov::numeric::set_worker_count(static_cast<std::size_t>(threads));
    std::mt19937_64 engine(2026);
    std::normal_distribution<double> normal(0.0, 0.02);
    const auto random_matrix = [&](std::size_t rows, std::size_t columns) {
        matrix x = xt::empty<double>({rows, columns});
        for (auto& v : x) v = normal(engine);
        return x;
    };
    layer_composition_factors earlier, later;
    for (auto* f : {&earlier, &later}) {
        f->heads = H, f->d = d, f->groups = G;
        for (std::size_t h = 0; h < H; ++h) {
            f->group.push_back(h / (H / G));
            f->r_v.push_back(random_matrix(d, d)), f->r_o.push_back(random_matrix(d, d)), f->r_q.push_back(random_matrix(d, d));
            f->qk_norm.push_back(1.0), f->ov_norm.push_back(1.0);
            f->r_v_norm.push_back(spectral_norm_bound(f->r_v.back()));
            f->r_o_norm.push_back(spectral_norm_bound(f->r_o.back())), f->r_q_norm.push_back(spectral_norm_bound(f->r_q.back()));
        }
    }
    earlier.layer = 0, later.layer = 1;
    later.reads = random_matrix((H + 2 * G) * d, D);
    later.reads32 = to_float32(later.reads.data(), later.reads.size());
    for (std::size_t b = 0; b < H + 2 * G; ++b) later.read_norms.push_back(frobenius(std::span<const double>(later.reads.data() + b * d * D, d * D)));
    earlier.writes = random_matrix(D, H * d);
    for (int r = 0; r < reps; ++r)
        for (const auto precision : {product_precision::float64, product_precision::float32}) {
            std::vector<composition_score> out;
            std::atomic<double> t3 = 0.0;
            const auto start = std::chrono::steady_clock::now();
            compose(earlier, later, out, &t3, precision);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (out.size() != H * H) return 2;
            std::printf("%s %.4f %.4f\n", precision == product_precision::float64 ? "float64" : "float32", seconds, t3.load());
        }
}
