#include "core/alloc.h"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>

#include "core/error.h"
#include "core/per_thread.h"
#include "core/shared_memory.h"

namespace tc {

namespace {
std::atomic<int64_t> g_fail_countdown{0};  // > 0: fail when it reaches 0
std::atomic<int64_t> g_alloc_calls{0};
std::atomic<int64_t> g_allocated{0}, g_peak{0};  // cpu_allocated_bytes, cpu_peak_allocated_bytes

void count_alloc(int64_t nbytes) noexcept {
  const int64_t now = g_allocated.fetch_add(nbytes, std::memory_order_relaxed) + nbytes;
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

// The large-block cache. Only blocks of at least kCpuCacheMinBlock pass
// through it, so its lock is taken at most once per 128 KiB allocated.
struct LargeBlocks {
  std::mutex mu;
  std::unordered_map<void*, int64_t> size_of;  // every live or cached large block
  std::multimap<int64_t, void*> cached;        // size -> free block
  int64_t cached_bytes = 0;
};
LargeBlocks& large() {
  static auto* l = new LargeBlocks();  // never destroyed: tensors may outlive statics
  return *l;
}
// 16 KiB steps below 1 MiB and 64 KiB above keep the rounding waste under
// 13% while letting nearby sizes share blocks.
int64_t large_size_class(int64_t n) {
  const int64_t step = n < (int64_t(1) << 20) ? 16384 : 65536;
  return (n + step - 1) & ~(step - 1);
}

void* take_cached(int64_t size) {
  LargeBlocks& l = large();
  std::lock_guard<std::mutex> g(l.mu);
  auto it = l.cached.lower_bound(size);
  if (it == l.cached.end() || it->first > size + size / 4) return nullptr;
  void* p = it->second;
  l.cached_bytes -= it->first;
  l.cached.erase(it);
  return p;
}

void* os_alloc(int64_t size) {
  void* p = nullptr;
  if (posix_memalign(&p, 64, size_t(size)) != 0) return nullptr;
  return p;
}

// Mid-size blocks (4 KiB up to the large-block cache): a few free blocks per
// 4 KiB size class, kept by the thread that freed them (no lock). A small
// matmul's output or a batch-64 activation is freed and taken again every
// call, and posix_memalign + free cost about as much as the rest of the
// call's bookkeeping. At most kSmallBytes per thread; given back when the
// thread exits (and the calling thread's by cpu_cache_release).
constexpr int64_t kSmallMin = 4096, kSmallStep = 4096;
constexpr int kSmallClasses = int(kCpuCacheMinBlock / kSmallStep);
constexpr int kSmallPerClass = 4;
constexpr int64_t kSmallBytes = int64_t(1) << 20;

bool is_small(int64_t nbytes) { return nbytes >= kSmallMin && nbytes < kCpuCacheMinBlock; }
int small_class(int64_t nbytes) { return int((nbytes + kSmallStep - 1) / kSmallStep) - 1; }
int64_t small_class_size(int cls) { return int64_t(cls + 1) * kSmallStep; }

struct SmallCache {
  void* blocks[kSmallClasses][kSmallPerClass];
  int count[kSmallClasses];
  int64_t bytes;
  void release() noexcept {
    for (int c = 0; c < kSmallClasses; ++c) {
      for (int i = 0; i < count[c]; ++i) std::free(blocks[c][i]);
      count[c] = 0;
    }
    bytes = 0;
  }
  ~SmallCache() { release(); }
};
// nullptr while the thread exits, after its cache was given back.
SmallCache* small_cache() noexcept { return PerThread<SmallCache>::get(); }
}  // namespace

void cpu_cache_release() noexcept {
  if (SmallCache* c = small_cache()) c->release();
  LargeBlocks& l = large();
  std::lock_guard<std::mutex> g(l.mu);
  for (auto& [size, p] : l.cached) {
    l.size_of.erase(p);
    std::free(p);
  }
  l.cached.clear();
  l.cached_bytes = 0;
}

int64_t cpu_cached_bytes() noexcept {
  LargeBlocks& l = large();
  std::lock_guard<std::mutex> g(l.mu);
  return l.cached_bytes;
}

bool alloc_hooks_compiled() noexcept {
#ifdef TC_TEST_HOOKS
  return true;
#else
  return false;
#endif
}

int64_t cpu_allocated_bytes() noexcept { return g_allocated.load(std::memory_order_relaxed); }
int64_t cpu_peak_allocated_bytes() noexcept { return g_peak.load(std::memory_order_relaxed); }
void reset_cpu_peak_bytes() noexcept { g_peak.store(g_allocated.load(std::memory_order_relaxed)); }

void set_fail_alloc_at(int64_t n) noexcept { g_fail_countdown.store(n < 0 ? 0 : n); }
int64_t fail_alloc_at() noexcept { return g_fail_countdown.load(); }
int64_t alloc_count() noexcept { return g_alloc_calls.load(std::memory_order_relaxed); }

namespace {
// size bytes from the OS; when that fails, once more after giving back every
// cached block (blocks of other sizes may make room); then the error, naming
// the nbytes asked for.
void* os_alloc_or_fail(int64_t size, int64_t nbytes) {
  void* p = os_alloc(size);
  if (!p) {
    cpu_cache_release();
    p = os_alloc(size);
  }
  if (!p) {
    fail(TC_ERR_OUT_OF_MEMORY,
         str("out of memory allocating ", nbytes, " bytes (", double(nbytes) / (1 << 30), " GiB) on cpu"));
  }
  return p;
}
}  // namespace

namespace {
// cpu_alloc without the accounting.
void* cpu_alloc_block(int64_t nbytes) {
  g_alloc_calls.fetch_add(1, std::memory_order_relaxed);
#ifdef TC_TEST_HOOKS
  if (g_fail_countdown.load(std::memory_order_relaxed) > 0 && g_fail_countdown.fetch_sub(1) == 1) {
    fail(TC_ERR_OUT_OF_MEMORY, str("out of memory allocating ", nbytes, " bytes on cpu (injected failure)"));
  }
#endif
  TC_CHECK(nbytes >= 0, TC_ERR_INVALID_ARGUMENT, "negative allocation size ", nbytes);
  TC_CHECK(nbytes <= (int64_t(1) << 62), TC_ERR_OUT_OF_MEMORY, "out of memory allocating ", nbytes,
           " bytes on cpu");
  // Round up to the alignment; an empty tensor still gets a unique pointer.
  const int64_t rounded = (nbytes + 63) & ~int64_t(63);
  if (is_small(nbytes)) {  // the same test as cpu_free's
    const int cls = small_class(nbytes);
    SmallCache* c = small_cache();
    if (c && c->count[cls] > 0) {
      c->bytes -= small_class_size(cls);
      return c->blocks[cls][--c->count[cls]];
    }
    return os_alloc_or_fail(small_class_size(cls), nbytes);
  }
  if (nbytes < kCpuCacheMinBlock)
    return os_alloc_or_fail(rounded > 0 ? rounded : 64, nbytes);  // cpu_free's test
  const int64_t size = large_size_class(rounded);
  if (void* p = take_cached(size)) return p;
  void* p = os_alloc_or_fail(size, nbytes);
  LargeBlocks& l = large();
  try {
    std::lock_guard<std::mutex> g(l.mu);
    l.size_of.emplace(p, size);
  } catch (...) {
    std::free(p);
    throw;
  }
  return p;
}
}  // namespace

void* cpu_alloc(int64_t nbytes) {
  void* p = cpu_alloc_block(nbytes);  // throws before counting when it fails
  count_alloc(nbytes);
  return p;
}

// Shared-memory segments (core/shared_memory.cpp) count as allocations: the
// OOM walk fails them in turn as it does cpu_alloc's blocks.
bool injected_alloc_failure() noexcept {
  g_alloc_calls.fetch_add(1, std::memory_order_relaxed);
#ifdef TC_TEST_HOOKS
  return g_fail_countdown.load(std::memory_order_relaxed) > 0 && g_fail_countdown.fetch_sub(1) == 1;
#else
  return false;
#endif
}

void cpu_free(void* p, int64_t nbytes) noexcept {
  if (!p) return;
  g_allocated.fetch_sub(nbytes, std::memory_order_relaxed);
  if (is_small(nbytes)) {
    const int cls = small_class(nbytes);
    SmallCache* c = small_cache();
    if (c && c->count[cls] < kSmallPerClass && c->bytes + small_class_size(cls) <= kSmallBytes) {
      c->blocks[cls][c->count[cls]++] = p;
      c->bytes += small_class_size(cls);
      return;
    }
    std::free(p);
    return;
  }
  if (nbytes < kCpuCacheMinBlock) {
    std::free(p);
    return;
  }
  LargeBlocks& l = large();
  {
    std::lock_guard<std::mutex> g(l.mu);
    auto it = l.size_of.find(p);
    if (it != l.size_of.end()) {
      const int64_t size = it->second;
      if (l.cached_bytes + size <= kCpuCacheLimit) {
        try {
          l.cached.emplace(size, p);
          l.cached_bytes += size;
          return;
        } catch (...) {
          // No memory for the cache's bookkeeping: free the block instead.
        }
      }
      l.size_of.erase(it);
    }
  }
  std::free(p);
}

}  // namespace tc
