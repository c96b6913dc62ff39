// Keeping the memory of a freed layer for the next one.
//
// A layer-by-layer reader allocates one layer's head matrices (GPT-2 small: 48 blocks of 384 KiB),
// frees them and allocates the next layer's. glibc serves blocks that large with mmap and returns
// them with munmap, so every layer paid for the kernel zeroing fresh pages: on GPT-2 small that
// was more than half the time of reading all 144 heads. Raising glibc's mmap and trim thresholds
// lets freed layers be reused from the heap; the peak stays one layer. A process-wide setting, so
// the program (not the library) opts in, once, before reading a model.
#pragma once

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace qkov::model {

/// Serve blocks below 32 MiB (glibc's largest mmap threshold) from the heap and keep up to
/// 256 MiB of freed heap for reuse. A no-op outside glibc.
inline void reuse_freed_layer_memory()
{
#if defined(__GLIBC__)
    (void)mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    (void)mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
#endif
}

} // namespace qkov::model
