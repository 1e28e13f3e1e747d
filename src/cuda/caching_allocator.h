// The CUDA caching allocator: freed blocks are kept per device, by size,
// and reused for later requests of a similar size instead of going back to
// cudaMalloc/cudaFree (both synchronize the device). All work runs on each
// device's default stream, so reuse in allocation order is stream-ordered.
#pragma once
#include <cstdint>

#include "core/device_hooks.h"

namespace tc {

// Throws TC_ERR_OUT_OF_MEMORY (after emptying the cache and retrying once)
// with the sizes involved.
void* cuda_cache_alloc(int64_t nbytes, int32_t device_index);
void cuda_cache_free(void* p, int32_t device_index);
DeviceMemoryStats cuda_cache_stats(int32_t device_index);
void cuda_cache_empty();

}  // namespace tc
