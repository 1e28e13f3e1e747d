#include "core/device_hooks.h"

#include <atomic>

#include "core/init.h"

namespace tc {

namespace {
std::atomic<const DeviceHooks*> g_cuda{nullptr};
}

const DeviceHooks* cuda_hooks() noexcept { return g_cuda.load(std::memory_order_acquire); }
void set_cuda_hooks(const DeviceHooks* hooks) noexcept { g_cuda.store(hooks, std::memory_order_release); }

const DeviceHooks& require_cuda(int32_t device_index) {
  TC_CHECK(!cuda_forked_child(), TC_ERR_DEVICE,
           "CUDA was initialized in the parent process before fork(); a forked child cannot use CUDA "
           "(start the child with exec/spawn instead)");
  const DeviceHooks* h = cuda_hooks();
  if (!h) {
    ensure_backend("cuda");
    h = cuda_hooks();
    TC_CHECK(h != nullptr, TC_ERR_INTERNAL, "the cuda stage succeeded but registered no backend");
  }
  const int32_t count = h->device_count();
  TC_CHECK(device_index >= 0 && device_index < count, TC_ERR_INDEX, "cuda:", device_index,
           " does not exist (", count, " CUDA device(s))");
  return *h;
}

}  // namespace tc
