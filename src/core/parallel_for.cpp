// The OpenMP region behind parallel_for (core/parallel_for.h).
#include "core/parallel_for.h"

#include <exception>

namespace tc::detail {

void parallel_for_ranges(int64_t n, int64_t grain, RangeFn fn, void* ctx) {
  const int64_t max_threads = std::max<int64_t>(1, num_threads());
  const int64_t nt = std::min<int64_t>(max_threads, n / std::max<int64_t>(grain, 1));
  if (nt <= 1 || omp_in_parallel()) {
    if (n > 0) fn(ctx, int64_t(0), n);
    return;
  }
  // An exception must not leave an OpenMP region (std::terminate): a range
  // that throws is caught in its thread and the first one rethrown here,
  // after every thread finished, so the ABI turns it into a status like any
  // other.
  std::exception_ptr error;
#pragma omp parallel num_threads(int(nt))
  {
    const int64_t t = omp_get_thread_num();
    const int64_t chunk = (n + nt - 1) / nt;
    const int64_t begin = t * chunk;
    const int64_t end = std::min(n, begin + chunk);
    try {
      if (begin < end) fn(ctx, begin, end);
    } catch (...) {
#pragma omp critical(tc_parallel_for_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace tc::detail
