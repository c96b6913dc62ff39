#include "out_of_memory.hpp"

#include <atomic>
#include <cstddef>
#include <new>

namespace qkov::app {

namespace {

// 16 MiB. The trees qkov reads from untrusted JSON are released without allocating
// (io/json_release.hpp); the reserve is for what else the unwinding and the message allocate: a
// JSON tree released by its own destructor, which allocates 16 bytes per entry of its largest list
// and its path down (the summaries and documents the commands build hold a few thousand), and the
// message's strings. 16 MiB holds such a list of 350,000 entries even while its vector doubles (3 x
// 16 bytes each). The pages are not touched: what the limits count (ulimit -v, RLIMIT_DATA) is the
// address space, which the reserve gives back whole (glibc maps a block this large by itself).
constexpr std::size_t reserve_bytes = std::size_t{16} << 20;

std::atomic<char*> reserve{nullptr};

// Runs in whichever thread's allocation failed first; the exchange frees the reserve once.
void release_reserve_and_fail()
{
    delete[] reserve.exchange(nullptr);
    throw std::bad_alloc();
}

} // namespace

void keep_memory_reserve()
{
    reserve = new char[reserve_bytes];
    std::set_new_handler(release_reserve_and_fail);
}

std::string model_out_of_memory_advice()
{
    // The readers bound every size by the file before allocating; what is left is work the
    // model's true sizes or the options ask for, beyond this machine's memory.
    return "the model's sizes (width, vocabulary, layers) or the options asked for more memory than this machine can give; try fewer --layers, "
           "a shorter --length or --context, or a larger machine";
}

} // namespace qkov::app
