// --threads N, the BLAS thread count of the subcommands that run large products (scan, detect).
#pragma once

#include <CLI/CLI.hpp>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <thread>

#include "number_options.hpp"
#include "qkov/numeric/blas_threads.hpp"

namespace qkov::app {

/// The largest --threads: the cores the system reports (1 when it cannot tell).
inline int thread_cap() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

inline CLI::Option* add_threads_option(CLI::App* command, std::optional<int>& threads)
{
    return command->add_option("--threads", threads, "BLAS threads, 1..the number of cores (default: the BLAS's own default)")
        ->check(integer_in(1, thread_cap()));
}

/// Sets the BLAS thread count when --threads was given; a BLAS other than OpenBLAS is named as the reason it cannot.
inline void apply_threads_option(const std::optional<int>& threads)
{
    if (threads && !numeric::set_blas_threads(*threads))
        throw std::invalid_argument("qkov: --threads: the BLAS this tool is linked with is not OpenBLAS, whose thread count it sets; "
                                    "use that BLAS's own setting (e.g. OMP_NUM_THREADS) instead");
}

} // namespace qkov::app
