// tc_* functions of tc.h's CUDA section.
#include "abi/api.h"
#include "core/device_hooks.h"

using namespace tc;

TC_API int32_t tc_cuda_memory_stats_get(int32_t device, tc_cuda_memory_stats* out) {
  return api("tc_cuda_memory_stats_get", [&] {
    out_ptr(out, "out");
    TC_CHECK(out->size >= sizeof(tc_cuda_memory_stats), TC_ERR_INVALID_ARGUMENT, "out->size is ", out->size,
             "; set it to sizeof(tc_cuda_memory_stats) (", sizeof(tc_cuda_memory_stats), ")");
    TC_CHECK(device_type(device) == TC_DEVICE_CUDA, TC_ERR_INVALID_ARGUMENT, "device ", device_name(device),
             " is not a cuda device");
    const DeviceMemoryStats stats = require_cuda(device_index(device)).memory_stats(device_index(device));
    out->allocated = stats.allocated;
    out->reserved = stats.reserved;
    out->peak_allocated = stats.peak_allocated;
  });
}

TC_API int32_t tc_cuda_empty_cache(void) {
  return api("tc_cuda_empty_cache", [&] {
#ifndef TC_HAVE_CUDA
    fail(TC_ERR_NOT_COMPILED, "libtc was built without CUDA");
#else
    // Nothing is cached before the backend's first use: nothing to do then.
    if (const DeviceHooks* h = cuda_hooks()) h->empty_cache();
#endif
  });
}
