// Runs independent blocks of work on all hardware threads.
//
// The row blocks of an attention pattern are independent (each writes its own rows), so they are
// handed out one at a time from an atomic counter to std::hardware_concurrency() threads; a thread
// that finishes early takes the next block, which balances the causal blocks' growing widths.
// BLAS called inside a block runs on that block's thread alone (blas_threads.hpp).
//
// A tool may cap the threads (qkov's --threads: set_worker_count). Blocks started from inside a
// block run on that block's thread: the workers already occupy the cores, and more threads than
// cores would only compete for them (the scan runs heads as blocks, and a head's products are
// run-time layer products that split into blocks of their own).
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

namespace detail {

inline std::atomic<std::size_t>& worker_limit()
{
    static std::atomic<std::size_t> limit{0};  // 0: the hardware's threads
    return limit;
}

inline thread_local bool inside_block = false;  ///< this thread is running a block of for_each_block

} // namespace detail

/// Threads used by the layer: set_worker_count's, else the hardware's, at least 1.
inline std::size_t worker_count()
{
    const std::size_t limit = detail::worker_limit().load();
    return limit != 0 ? limit : std::max<std::size_t>(1, std::thread::hardware_concurrency());
}

/// Caps the threads of every following for_each_block at `threads` (0: the hardware's again).
inline void set_worker_count(std::size_t threads) { detail::worker_limit() = threads; }
/// The cap set_worker_count last set (0: none), for a caller that puts it back afterwards.
inline std::size_t worker_count_setting() { return detail::worker_limit().load(); }

/// Calls work(b) once for every b < blocks, on up to worker_count() threads (the calling thread is
/// one of them; it alone inside another block). The first exception thrown by a block is rethrown
/// here after all threads stop.
template <class Work>
void for_each_block(std::size_t blocks, Work&& work)
{
    const bool nested = detail::inside_block;
    const std::size_t threads = nested ? 1 : std::min(worker_count(), blocks);
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto run = [&] {
        detail::inside_block = true;
        for (std::size_t b; (b = next.fetch_add(1)) < blocks;) {
            try {
                work(b);
            } catch (...) {
                const std::lock_guard lock(failure_mutex);
                if (!failure) failure = std::current_exception();
                next = blocks;  // stop handing out blocks
            }
        }
        detail::inside_block = nested;
    };
    const single_threaded_blas blas_on_worker_threads;
    std::vector<std::jthread> helpers;
    for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(run);
    run();
    helpers.clear();  // joins
    if (failure) std::rethrow_exception(failure);
}

} // namespace qkov::numeric
