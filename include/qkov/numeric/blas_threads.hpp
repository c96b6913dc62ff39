// Keeps BLAS on the calling thread while the run-time layer runs blocks on its own threads.
//
// The layer parallelizes by rows itself (parallel_blocks.hpp): every worker calls BLAS on its own
// block. A multi-threaded BLAS would then start its own threads inside each call and compete with
// the workers for the same cores; and on the layer's thin products (an n x D batch times a D x d
// head matrix, d = 64) OpenBLAS's own threading was measured slower than one thread. So while
// blocks run, OpenBLAS is set to one thread and restored afterwards.
//
// openblas_set_num_threads is process-wide, so the guards share one count: the first guard alive
// saves the thread count and sets one thread, the last one to end restores it, whatever thread
// creates or ends them and in whatever order. (A guard restoring on its own, while a guard of
// another thread was still alive, let that thread's BLAS calls switch to several threads midway,
// and their results changed in the last bits.) While any guard is alive, a BLAS call made by
// another thread of the program also runs single-threaded: same results, only its speed changes.
//
// The OpenBLAS entry points are declared weak: with another BLAS they are absent (null) and the
// guard does nothing.
#pragma once

#include <mutex>
#include <optional>

extern "C" {
__attribute__((weak)) void openblas_set_num_threads(int);
__attribute__((weak)) int openblas_get_num_threads(void);
}

namespace qkov::numeric {

/// While any is alive (on any thread), OpenBLAS (if it is the BLAS) runs every call on the calling thread.
class single_threaded_blas {
public:
    single_threaded_blas()
    {
        auto& s = shared();
        const std::lock_guard lock(s.mutex);
        if (s.guards++ == 0 && openblas_set_num_threads != nullptr && openblas_get_num_threads != nullptr) {
            s.saved = openblas_get_num_threads();
            if (s.saved > 1) openblas_set_num_threads(1);
        }
    }
    ~single_threaded_blas()
    {
        auto& s = shared();
        const std::lock_guard lock(s.mutex);
        if (--s.guards == 0 && s.saved > 1) openblas_set_num_threads(s.saved);
    }
    single_threaded_blas(const single_threaded_blas&) = delete;
    single_threaded_blas& operator=(const single_threaded_blas&) = delete;

private:
    struct state {
        std::mutex mutex;
        int guards = 0;  ///< guards alive in the process
        int saved = 0;   ///< the thread count the first of them found
    };
    static state& shared()
    {
        static state s;  // one per process (an inline function's static)
        return s;
    }
};

/// The number of threads OpenBLAS runs its calls on; nullopt when the BLAS is not OpenBLAS.
inline std::optional<int> blas_threads()
{
    if (openblas_get_num_threads == nullptr) return std::nullopt;
    return openblas_get_num_threads();
}

/// Sets the number of threads OpenBLAS runs the following calls on (a tool's --threads option);
/// false, and nothing set, when the BLAS is not OpenBLAS.
inline bool set_blas_threads(int threads)
{
    if (openblas_set_num_threads == nullptr || openblas_get_num_threads == nullptr) return false;
    openblas_set_num_threads(threads);
    return true;
}

} // namespace qkov::numeric
