// What the core needs from a device backend (today: CUDA), as a table of
// functions the backend registers when its lazy stage succeeds. The core
// never includes CUDA headers: a CPU-only build has no table, and a CUDA
// build without a usable GPU has none either (every use then reports why).
#pragma once
#include <cstdint>

namespace tc {

// A device's caching-allocator statistics, in bytes (tc_cuda_memory_stats's fields).
struct DeviceMemoryStats {
  int64_t allocated = 0;       // held by live tensors
  int64_t reserved = 0;        // held by the cache from the driver
  int64_t peak_allocated = 0;  // highest `allocated` since start or reset
};

struct DeviceHooks {
  // Device memory from the backend's caching allocator; throws
  // TC_ERR_OUT_OF_MEMORY (with sizes) or TC_ERR_DEVICE.
  void* (*alloc)(int64_t nbytes, int32_t device_index);
  void (*free)(void* p, int32_t device_index);  // never throws
  // nbytes contiguous bytes between any two of host and device memory.
  void (*copy)(void* dst, int32_t dst_device, const void* src, int32_t src_device, int64_t nbytes);
  // Sets nbytes of device memory to zero.
  void (*memset_zero)(void* dst, int32_t device_index, int64_t nbytes);
  // Sets n elements of element_size bytes to the bytes at pattern.
  void (*fill)(void* dst, int32_t device_index, int64_t n, int64_t element_size, const void* pattern);
  DeviceMemoryStats (*memory_stats)(int32_t device_index);
  void (*empty_cache)();
  int32_t (*device_count)();
};

// The CUDA backend's table, or nullptr while its stage has not succeeded.
const DeviceHooks* cuda_hooks() noexcept;
void set_cuda_hooks(const DeviceHooks* hooks) noexcept;
// True in a child forked after CUDA was initialized in its parent.
bool cuda_forked_child() noexcept;
// The table, running the lazy cuda stage first; throws its failure.
const DeviceHooks& require_cuda(int32_t device_index);

}  // namespace tc
