// A loop over [0, n) split across the CPU's OpenMP threads when there is
// enough work: the CPU backend's kernels run on it (cpu/loops.h), and so does
// host code above the backends that fills a host buffer itself (linspace's
// values, randint's draws) or copies between host buffers.
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "core/init.h"

namespace tc {

// Below this many elements per thread, OpenMP's fork/join costs more than it saves.
constexpr int64_t kParallelGrain = 32768;

namespace detail {
// One range of a parallel_for: the caller's callable behind a plain pointer,
// so that the OpenMP region (and its exception handling) is compiled once,
// in core/parallel_for.cpp, instead of once per kernel (twice, counting the
// serial path) in every file that runs a loop.
using RangeFn = void (*)(void* ctx, int64_t begin, int64_t end);
void parallel_for_ranges(int64_t n, int64_t grain, RangeFn fn, void* ctx);
}  // namespace detail

// Runs fn(begin, end) over [0, n), split into contiguous ranges across threads when
// n is large. Which thread runs which range never changes results of elementwise kernels.
// An exception thrown by a range (a kernel's scratch buffer failing to allocate,
// a check) is rethrown here after every thread finished.
template <typename F>
void parallel_for(int64_t n, int64_t grain, F&& fn) {
  using Fn = std::remove_reference_t<F>;
  detail::parallel_for_ranges(
      n, grain, [](void* ctx, int64_t b, int64_t e) { (*static_cast<Fn*>(ctx))(b, e); },
      const_cast<void*>(static_cast<const void*>(std::addressof(fn))));
}

}  // namespace tc
