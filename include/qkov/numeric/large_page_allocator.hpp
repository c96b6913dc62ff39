// The allocator of the run-time layer's tensors: large blocks on 2 MiB pages.
//
// An L x L attention pattern at L = 4096 is 128 MiB in double. On 4 KiB pages the kernel takes one
// page fault per 4 KiB the first time the pattern is written (32768 faults); measured on the
// development machine this first touch cost more than the whole causal score product. Blocks of at
// least 4 MiB are therefore aligned to 2 MiB and, on Linux, marked for transparent huge pages
// (madvise MADV_HUGEPAGE, which also works when the system setting is "madvise"), cutting the
// faults 512-fold. numpy does the same for its large arrays. Smaller blocks use plain operator new.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace qkov::numeric {

template <class T>
struct large_page_allocator {
    using value_type = T;

    static constexpr std::size_t page_bytes = std::size_t(2) << 20;       // one transparent huge page
    static constexpr std::size_t threshold_bytes = std::size_t(4) << 20;  // below this, plain new

    large_page_allocator() noexcept = default;
    template <class U>
    large_page_allocator(const large_page_allocator<U>&) noexcept // NOLINT: rebinding must be implicit
    {
    }

    [[nodiscard]] T* allocate(std::size_t n)
    {
        // Rounding up to whole pages must not wrap either: a wrapped size returned a tiny block.
        if (n > (std::size_t(-1) - page_bytes) / sizeof(T)) throw std::bad_array_new_length();
        const std::size_t bytes = n * sizeof(T);
        if (bytes < threshold_bytes) return static_cast<T*>(::operator new(bytes, std::align_val_t(alignof(T) > 64 ? alignof(T) : 64)));
        const std::size_t rounded = (bytes + page_bytes - 1) / page_bytes * page_bytes;  // aligned_alloc needs a multiple
        void* block = std::aligned_alloc(page_bytes, rounded);
        if (block == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        ::madvise(block, rounded, MADV_HUGEPAGE);  // advice only: without huge pages the block still works
#endif
        return static_cast<T*>(block);
    }

    void deallocate(T* block, std::size_t n) noexcept
    {
        if (n * sizeof(T) < threshold_bytes)
            ::operator delete(block, std::align_val_t(alignof(T) > 64 ? alignof(T) : 64));
        else
            std::free(block);
    }

    template <class U>
    friend bool operator==(const large_page_allocator&, const large_page_allocator<U>&) noexcept
    {
        return true;
    }
};

} // namespace qkov::numeric
