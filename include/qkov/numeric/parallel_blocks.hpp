// Runs independent blocks of work on all hardware threads.
//
// The row blocks of an attention pattern are independent (each writes its own rows), so they are
// handed out one at a time from an atomic counter to std::hardware_concurrency() threads; a thread
// that finishes early takes the next block, which balances the causal blocks' growing widths.
// BLAS called inside a block runs on that block's thread alone (blas_threads.hpp).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "qkov/numeric/blas_threads.hpp"

namespace qkov::numeric {

/// Threads used by the layer: the hardware's, at least 1.
inline std::size_t worker_count()
{
    return std::max<std::size_t>(1, std::thread::hardware_concurrency());
}

/// Calls work(b) once for every b < blocks, on up to worker_count() threads (the calling thread is
/// one of them). The first exception thrown by a block is rethrown here after all threads stop.
template <class Work>
void for_each_block(std::size_t blocks, Work&& work)
{
    const std::size_t threads = std::min(worker_count(), blocks);
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto run = [&] {
        for (std::size_t b; (b = next.fetch_add(1)) < blocks;) {
            try {
                work(b);
            } catch (...) {
                const std::lock_guard lock(failure_mutex);
                if (!failure) failure = std::current_exception();
                next = blocks;  // stop handing out blocks
            }
        }
    };
    const single_threaded_blas blas_on_worker_threads;
    std::vector<std::jthread> helpers;
    for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(run);
    run();
    helpers.clear();  // joins
    if (failure) std::rethrow_exception(failure);
}

} // namespace qkov::numeric
