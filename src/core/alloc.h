// The CPU allocator: 64-byte aligned blocks. Every CPU byte libtc allocates
// for tensor data goes through cpu_alloc, so failure injection (test builds)
// and accounting have one place to hook.
#pragma once
#include <cstdint>

namespace tc {

// Throws TC_ERR_OUT_OF_MEMORY naming the size when the allocation fails.
void* cpu_alloc(int64_t nbytes);
// nbytes: what was asked of cpu_alloc (it tells small blocks from large ones).
void cpu_free(void* p, int64_t nbytes) noexcept;

// Large blocks (>= 128 KiB) are cached when freed, up to kCpuCacheLimit bytes,
// and handed out again for requests of about the same size: a fresh 64 MB
// output would otherwise page-fault through the kernel on every op (the OS
// hands it out zeroed, page by page), which costs more than the op itself.
// 128 KiB, glibc's first mmap threshold: above it malloc maps blocks or trims
// the heap top when they are freed, so a training step that frees and takes
// back an 800 KB gradient each step page-faulted ~75 times a step (an MLP
// step at batch 64 took 1.35x as long, depending only on the heap's layout).
constexpr int64_t kCpuCacheMinBlock = int64_t(128) << 10;
constexpr int64_t kCpuCacheLimit = int64_t(1) << 30;
// Gives every cached block back to the OS (tc_shutdown, and before an
// allocation is declared failed).
void cpu_cache_release() noexcept;
int64_t cpu_cached_bytes() noexcept;

// The bytes of tensor data allocated and not yet freed (asked of cpu_alloc,
// before rounding; cached blocks are not counted) and the highest that has
// been since the start or the last reset_cpu_peak_bytes (which sets the peak
// to what is allocated now): the memory a workload keeps alive, apart from
// what the caches hold.
int64_t cpu_allocated_bytes() noexcept;
int64_t cpu_peak_allocated_bytes() noexcept;
void reset_cpu_peak_bytes() noexcept;

// Test builds (TC_TEST_HOOKS): make the Nth cpu_alloc from now fail
// (0 = never), from the TC_FAIL_ALLOC_AT environment variable read at init or
// from tc_set_flag("fail_alloc_at", N).
void set_fail_alloc_at(int64_t n) noexcept;
int64_t fail_alloc_at() noexcept;
bool alloc_hooks_compiled() noexcept;
// Calls of cpu_alloc since the process started (successful or not), so a
// test can count a workload's allocations and then fail each one in turn.
int64_t alloc_count() noexcept;

}  // namespace tc
