// Keeps BLAS on the calling thread while the run-time layer runs blocks on its own threads.
//
// The layer parallelizes by rows itself (parallel_blocks.hpp): every worker calls BLAS on its own
// block. A multi-threaded BLAS would then start its own threads inside each call and compete with
// the workers for the same cores; and on the layer's thin products (an n x D batch times a D x d
// head matrix, d = 64) OpenBLAS's own threading was measured slower than one thread. So while
// blocks run, OpenBLAS is set to one thread and restored afterwards. openblas_set_num_threads is
// process-wide: a BLAS call made meanwhile by another thread of the program also runs
// single-threaded (same results, only its speed changes).
//
// The OpenBLAS entry points are declared weak: with another BLAS they are absent (null) and the
// guard does nothing.
#pragma once

extern "C" {
__attribute__((weak)) void openblas_set_num_threads(int);
__attribute__((weak)) int openblas_get_num_threads(void);
}

namespace qkov::numeric {

/// While alive, OpenBLAS (if it is the BLAS) runs every call on the calling thread.
class single_threaded_blas {
public:
    single_threaded_blas()
    {
        if (openblas_set_num_threads != nullptr && openblas_get_num_threads != nullptr) {
            saved_ = openblas_get_num_threads();
            if (saved_ > 1) openblas_set_num_threads(1);
        }
    }
    ~single_threaded_blas()
    {
        if (saved_ > 1) openblas_set_num_threads(saved_);
    }
    single_threaded_blas(const single_threaded_blas&) = delete;
    single_threaded_blas& operator=(const single_threaded_blas&) = delete;

private:
    int saved_ = 0;
};

} // namespace qkov::numeric
