// A loop over [0, n) split across the CPU's OpenMP threads when there is
// enough work: the CPU backend's kernels run on it (cpu/loops.h), and so does
// host code above the backends that fills a host buffer itself (linspace's
// values, randint's draws) or copies between host buffers.
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <exception>

#include "core/init.h"

namespace tc {

// Below this many elements per thread, OpenMP's fork/join costs more than it saves.
constexpr int64_t kParallelGrain = 32768;

// Runs fn(begin, end) over [0, n), split into contiguous ranges across threads when
// n is large. Which thread runs which range never changes results of elementwise kernels.
template <typename F>
void parallel_for(int64_t n, int64_t grain, F&& fn) {
  const int64_t max_threads = std::max<int64_t>(1, num_threads());
  const int64_t nt = std::min<int64_t>(max_threads, n / std::max<int64_t>(grain, 1));
  if (nt <= 1 || omp_in_parallel()) {
    if (n > 0) fn(int64_t(0), n);
    return;
  }
  // An exception must not leave an OpenMP region (std::terminate): a range
  // that throws (a kernel's scratch buffer failing to allocate, a check) is
  // caught in its thread and the first one rethrown here, after every
  // thread finished, so the ABI turns it into a status like any other.
  std::exception_ptr error;
#pragma omp parallel num_threads(int(nt))
  {
    const int64_t t = omp_get_thread_num();
    const int64_t chunk = (n + nt - 1) / nt;
    const int64_t begin = t * chunk;
    const int64_t end = std::min(n, begin + chunk);
    try {
      if (begin < end) fn(begin, end);
    } catch (...) {
#pragma omp critical(tc_parallel_for_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace tc
