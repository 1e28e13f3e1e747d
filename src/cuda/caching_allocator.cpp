#include "cuda/caching_allocator.h"

#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "cuda/cuda_check.h"

namespace tc {

namespace {

constexpr int64_t kSmallRound = 512;          // small blocks: multiples of 512 B
constexpr int64_t kLargeThreshold = 1 << 20;  // from 1 MiB on...
constexpr int64_t kLargeRound = 2 << 20;      // ...multiples of 2 MiB

struct DeviceCache {
  std::multimap<int64_t, void*> free_blocks;  // size -> block
  std::unordered_map<void*, int64_t> sizes;   // every block we hold, live or cached
  int64_t allocated = 0;
  int64_t reserved = 0;
  int64_t peak = 0;
};

std::mutex g_mu;
std::vector<DeviceCache>& caches() {
  static auto* c = new std::vector<DeviceCache>();  // outlives static destruction
  return *c;
}
DeviceCache& cache(int32_t index) {
  auto& c = caches();
  if (c.size() <= size_t(index)) c.resize(size_t(index) + 1);
  return c[size_t(index)];
}

int64_t round_size(int64_t n) {
  if (n <= 0) return kSmallRound;
  const int64_t r = n < kLargeThreshold ? kSmallRound : kLargeRound;
  return (n + r - 1) / r * r;
}

// Frees every cached block of every device (g_mu held).
void release_cached() {
  for (size_t d = 0; d < caches().size(); ++d) {
    DeviceCache& c = caches()[d];
    if (c.free_blocks.empty()) continue;
    cudaSetDevice(int(d));
    for (auto& [size, p] : c.free_blocks) {
      cudaFree(p);
      c.sizes.erase(p);
      c.reserved -= size;
    }
    c.free_blocks.clear();
  }
}

}  // namespace

void* cuda_cache_alloc(int64_t nbytes, int32_t index) {
  const int64_t size = round_size(nbytes);
  std::lock_guard<std::mutex> g(g_mu);
  DeviceCache& c = cache(index);
  // Reuse the smallest cached block that fits without wasting over half.
  auto it = c.free_blocks.lower_bound(size);
  if (it != c.free_blocks.end() && it->first <= 2 * size) {
    void* p = it->second;
    c.allocated += it->first;
    c.peak = std::max(c.peak, c.allocated);
    c.free_blocks.erase(it);
    return p;
  }
  TC_CUDA_CHECK(cudaSetDevice(index));
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, size_t(size));
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the sticky-free error before retrying
    release_cached();
    cudaSetDevice(index);
    e = cudaMalloc(&p, size_t(size));
  }
  if (e != cudaSuccess) {
    cudaGetLastError();
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    fail(e == cudaErrorMemoryAllocation ? TC_ERR_OUT_OF_MEMORY : TC_ERR_DEVICE,
         str("CUDA out of memory on cuda:", index, ": tried to allocate ", size, " bytes; ", c.allocated,
             " allocated by libtc, ", c.reserved, " reserved, ", free_b, " free of ", total_b,
             " (cudaMalloc: ", cudaGetErrorString(e), ")"));
  }
  c.sizes[p] = size;
  c.reserved += size;
  c.allocated += size;
  c.peak = std::max(c.peak, c.allocated);
  return p;
}

void cuda_cache_free(void* p, int32_t index) {
  if (!p) return;
  std::lock_guard<std::mutex> g(g_mu);
  DeviceCache& c = cache(index);
  auto it = c.sizes.find(p);
  if (it == c.sizes.end()) return;  // not ours: never happens, never crash
  c.allocated -= it->second;
  c.free_blocks.emplace(it->second, p);
}

DeviceMemoryStats cuda_cache_stats(int32_t index) {
  std::lock_guard<std::mutex> g(g_mu);
  DeviceCache& c = cache(index);
  DeviceMemoryStats s;
  s.allocated = c.allocated;
  s.reserved = c.reserved;
  s.peak_allocated = c.peak;
  return s;
}

void cuda_cache_empty() {
  std::lock_guard<std::mutex> g(g_mu);
  release_cached();
}

}  // namespace tc
