// --threads N of the subcommands that run large products (scan, detect): the threads of the
// run-time layer's blocks (a scan's heads, composition sources and token-circuit columns, the
// forward pass's row blocks; parallel_blocks.hpp), each running BLAS on its own thread, and
// OpenBLAS's own count for BLAS calls made outside blocks.
#pragma once

#include <CLI/CLI.hpp>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <thread>

#include "number_options.hpp"
#include "qkov/numeric/blas_threads.hpp"
#include "qkov/numeric/parallel_blocks.hpp"

namespace qkov::app {

/// The largest --threads: the cores the system reports (1 when it cannot tell).
inline int thread_cap() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

inline CLI::Option* add_threads_option(CLI::App* command, std::optional<int>& threads)
{
    return command->add_option("--threads", threads,
                               "Threads, 1..the number of cores (default: all): the work split in blocks (a scan's heads and composition sources), "
                               "BLAS on each block's thread; also OpenBLAS's own thread count")
        ->check(integer_in(1, thread_cap()));
}

/// Sets the worker and BLAS thread counts when --threads was given; a BLAS other than OpenBLAS is
/// named as the reason its count cannot be set.
inline void apply_threads_option(const std::optional<int>& threads)
{
    if (!threads) return;
    numeric::set_worker_count(static_cast<std::size_t>(*threads));
    if (!numeric::set_blas_threads(*threads))
        throw std::invalid_argument("qkov: --threads: the BLAS this tool is linked with is not OpenBLAS, whose thread count it sets; "
                                    "use that BLAS's own setting (e.g. OMP_NUM_THREADS) instead");
}

} // namespace qkov::app
