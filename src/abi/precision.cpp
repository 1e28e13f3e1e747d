// tc_set_matmul_precision / tc_get_matmul_precision: torch's
// set_float32_matmul_precision, process-wide (one atomic), read by the CUDA
// matmul (src/cuda/blas.cpp) on every float32 product.
#include <atomic>

#include "abi/api.h"
#include "cuda/blas.h"

namespace tc {
namespace {
std::atomic<int32_t> g_matmul_precision{TC_MATMUL_PRECISION_HIGHEST};
}
int32_t matmul_precision() noexcept { return g_matmul_precision.load(std::memory_order_relaxed); }
void set_matmul_precision(int32_t precision) noexcept {
  g_matmul_precision.store(precision, std::memory_order_relaxed);
}
}  // namespace tc

using namespace tc;

TC_API int32_t tc_set_matmul_precision(int32_t precision) {
  return api(__func__, [&] {
    TC_CHECK(precision == TC_MATMUL_PRECISION_HIGHEST || precision == TC_MATMUL_PRECISION_HIGH ||
                 precision == TC_MATMUL_PRECISION_MEDIUM,
             TC_ERR_INVALID_ARGUMENT,
             "precision must be TC_MATMUL_PRECISION_HIGHEST (0), _HIGH (1) or _MEDIUM (2) but is ",
             precision);
    set_matmul_precision(precision);
  });
}

TC_API int32_t tc_get_matmul_precision(int32_t* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = matmul_precision();
  });
}
