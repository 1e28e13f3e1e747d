#include "core/matmul_precision.h"

#include <atomic>

#include "tc_constants.h"

namespace tc {
namespace {
std::atomic<int32_t> g_matmul_precision{TC_MATMUL_PRECISION_HIGHEST};
}
int32_t matmul_precision() noexcept { return g_matmul_precision.load(std::memory_order_relaxed); }
void set_matmul_precision(int32_t precision) noexcept {
  g_matmul_precision.store(precision, std::memory_order_relaxed);
}
}  // namespace tc
