// Running a computation on a thread with a large stack.
//
// qkov::matrix keeps its entries inline (what constant evaluation needs), so at run time a
// D x d matrix of 100-digit numbers at D = 768 takes megabytes, and a function that holds a few
// of them, or into which the compiler inlines callees that do, needs a frame of tens of MB
// (measured: 20 MB for the B2/B3 residual at d = 64 with g++ -O2). The default 8 MB main stack
// is not enough; a thread's stack is only reserved address space until touched.
//
// A frame larger than what is left of the stack could step over the guard page below it without
// touching it, and write into whatever memory lies beyond (seen with clang -O2). qkov's targets
// are compiled with -fstack-clash-protection (CMakeLists.txt), which makes every large frame touch
// its pages in order, so an overflow always hits the guard and faults; keeping the matrices
// inline (what constant evaluation needs) rather than moving them to the heap keeps one
// implementation for the proofs and the validation. The guard is also widened to 1 MiB.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

namespace qkov::precision {

/// Calls f() on a new thread whose stack is `stack_bytes`, waits, and returns its result (or
/// rethrows its exception).
template <class F>
auto run_with_stack(std::size_t stack_bytes, F f) -> decltype(f())
{
    using result_type = decltype(f());
    struct job {
        F* function;
        result_type* result;
        std::exception_ptr error;
    };
    result_type result{};
    job task{&f, &result, nullptr};
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    int status = pthread_attr_setstacksize(&attributes, stack_bytes);
    if (status == 0) status = pthread_attr_setguardsize(&attributes, std::size_t{1} << 20);
    pthread_t thread;
    if (status == 0)
        status = pthread_create(
            &thread, &attributes,
            [](void* argument) -> void* {
                auto* t = static_cast<job*>(argument);
                try {
                    *t->result = (*t->function)();
                } catch (...) {
                    t->error = std::current_exception();
                }
                return nullptr;
            },
            &task);
    pthread_attr_destroy(&attributes);
    if (status != 0)
        throw std::runtime_error("qkov: cannot start a thread with a " + std::to_string(stack_bytes >> 20) + " MiB stack");
    pthread_join(thread, nullptr);
    if (task.error) std::rethrow_exception(task.error);
    return result;
}

} // namespace qkov::precision
