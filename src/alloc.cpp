#include "alloc.h"

#include <atomic>
#include <cstdlib>

#include "status.h"

namespace tc {

namespace {
std::atomic<int64_t> g_fail_countdown{0};  // > 0: fail when it reaches 0
std::atomic<int64_t> g_alloc_calls{0};
}  // namespace

bool alloc_hooks_compiled() noexcept {
#ifdef TC_TEST_HOOKS
  return true;
#else
  return false;
#endif
}

void set_fail_alloc_at(int64_t n) noexcept { g_fail_countdown.store(n < 0 ? 0 : n); }
int64_t fail_alloc_at() noexcept { return g_fail_countdown.load(); }
int64_t alloc_count() noexcept { return g_alloc_calls.load(std::memory_order_relaxed); }

void* cpu_alloc(int64_t nbytes) {
  g_alloc_calls.fetch_add(1, std::memory_order_relaxed);
#ifdef TC_TEST_HOOKS
  if (g_fail_countdown.load(std::memory_order_relaxed) > 0 && g_fail_countdown.fetch_sub(1) == 1) {
    fail(TC_ERR_OUT_OF_MEMORY, str("out of memory allocating ", nbytes, " bytes on cpu (injected failure)"));
  }
#endif
  TC_CHECK(nbytes >= 0, TC_ERR_INVALID_ARGUMENT, "negative allocation size ", nbytes);
  // Round up to the alignment; an empty tensor still gets a unique pointer.
  const int64_t rounded = (nbytes + 63) & ~int64_t(63);
  TC_CHECK(rounded >= nbytes, TC_ERR_OUT_OF_MEMORY, "out of memory allocating ", nbytes, " bytes on cpu");
  void* p = nullptr;
  if (posix_memalign(&p, 64, size_t(rounded > 0 ? rounded : 64)) != 0 || p == nullptr) {
    fail(TC_ERR_OUT_OF_MEMORY,
         str("out of memory allocating ", nbytes, " bytes (", double(nbytes) / (1 << 30), " GiB) on cpu"));
  }
  return p;
}

void cpu_free(void* p) noexcept { std::free(p); }

}  // namespace tc
