// 1,000 tc_init / tc_shutdown cycles with steady memory: each cycle makes
// tensors (one of them never freed: tc_shutdown must free it), runs an op and
// reads flags; heap in use (the sanitizer's allocator when there is one, else
// glibc's mallinfo2) and RSS are compared after a warm-up and after the
// cycles.
#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

#include "core/alloc.h"
#include "core/tensor.h"
#include "tc.h"
#include "tc_binary_ops.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TC_SANITIZER_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TC_SANITIZER_HEAP 1
#endif
#endif
#ifdef TC_SANITIZER_HEAP
// From <sanitizer/allocator_interface.h> (not shipped with every compiler).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif

#pragma weak tc_add

namespace {

int64_t heap_in_use() {
#ifdef TC_SANITIZER_HEAP
  return int64_t(__sanitizer_get_current_allocated_bytes());
#else
  return int64_t(mallinfo2().uordblks);
#endif
}

int64_t rss_bytes() {
  long pages = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
  std::fclose(f);
  return int64_t(resident) * sysconf(_SC_PAGESIZE);
}

// One cycle; returns false on the first failing call.
bool cycle() {
  if (tc_init(nullptr) != TC_OK) return false;
  const int64_t shape[] = {32, 32};  // above the inline buffer: real allocations
  tc_tensor a = nullptr, b = nullptr, c = nullptr, kept = nullptr;
  bool ok = tc_ones(shape, 2, TC_FLOAT32, TC_CPU, &a) == TC_OK &&
            tc_zeros(shape, 2, TC_FLOAT64, TC_CPU, &b) == TC_OK &&
            tc_rand(shape, 2, TC_FLOAT32, TC_CPU, &kept) == TC_OK;
  if (ok && reinterpret_cast<void*>(&tc_add) != nullptr) ok = tc_add(a, b, &c) == TC_OK;
  int64_t live = -1;
  ok = ok && tc_get_flag("live_tensors", &live) == TC_OK && live >= 3;
  char report[256];
  int64_t needed = 0;
  ok = ok && tc_init_report(report, sizeof report, &needed) == TC_OK;
  for (tc_tensor t : {a, b, c})
    if (t) tc_tensor_free(t);
  // `kept` is left for tc_shutdown to free.
  return tc_shutdown() == TC_OK && ok;
}

TEST(InitCycles, ThousandCyclesWithSteadyMemory) {
  int32_t init = -1;
  tc_is_initialized(&init);
  ASSERT_EQ(init, 0);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(cycle()) << "warm-up cycle " << i;
  const int64_t heap0 = heap_in_use(), rss0 = rss_bytes(), tensors0 = tc::live_tensor_count();
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(cycle()) << "cycle " << i;
  const int64_t heap1 = heap_in_use(), rss1 = rss_bytes();
  EXPECT_EQ(tc::live_tensor_count(), tensors0) << "tc_shutdown left tensors alive";
  std::printf("init cycles: 1000 cycles; heap in use %lld -> %lld bytes (%+lld), RSS %lld -> %lld KiB\n",
              static_cast<long long>(heap0), static_cast<long long>(heap1),
              static_cast<long long>(heap1 - heap0), static_cast<long long>(rss0 / 1024),
              static_cast<long long>(rss1 / 1024));
  // Steady: a leak of even 64 bytes per cycle would show as 64,000. The
  // slack is the allocators' granularity (TSan's counts in 16 KiB steps).
  EXPECT_LE(heap1 - heap0, 32 * 1024) << "heap grows with init/shutdown cycles";
#ifndef TC_SANITIZER_HEAP
  // Under ASan, RSS holds the quarantine of freed blocks: only the heap
  // count above is meaningful there.
  EXPECT_LT(rss1 - rss0, 4 * 1024 * 1024) << "RSS grows with init/shutdown cycles";
#endif
}

}  // namespace
