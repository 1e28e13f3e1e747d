// The backend registry (src/backend/backend.h); the primitives' default forms are in
// backend_defaults.cpp.
#include "backend/backend.h"

#include "core/init.h"
#include "cpu/cpu_backend.h"

namespace tc {

namespace detail {
std::atomic<const Backend*> g_backends[kMaxDeviceTypes] = {};

const Backend& backend_slow(Device device) {
  const int32_t type = device_type(device);
  if (type == TC_DEVICE_CPU) {  // the built-in table, installed on first use
    register_backend(TC_DEVICE_CPU, &cpu::backend());
    return cpu::backend();
  }
  if (type == TC_DEVICE_CUDA) {
    ensure_backend("cuda");  // a CPU-only build: TC_ERR_NOT_COMPILED
    const Backend* b = g_backends[type].load(std::memory_order_acquire);
    if (b) return *b;
  }
  fail(TC_ERR_NOT_COMPILED, str("libtc was built without ", device_name(device), " support"));
}
}  // namespace detail

void register_backend(int32_t device_type, const Backend* backend) noexcept {
  if (device_type >= 0 && device_type < kMaxDeviceTypes)
    detail::g_backends[device_type].store(backend, std::memory_order_release);
}

}  // namespace tc
