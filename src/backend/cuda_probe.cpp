#include "backend/cuda_probe.h"

#include <dlfcn.h>

#include <mutex>

#include "core/error.h"

namespace tc {

namespace {

CudaProbe run_probe() {
  CudaProbe p;
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!driver) {
    const char* why = dlerror();
    p.reason = str("no NVIDIA driver: libcuda.so.1 could not be loaded (", why ? why : "not found", ")");
    return p;
  }
  void* nvml = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!nvml) {
    p.reason =
        "the NVIDIA driver is installed but NVML (libnvidia-ml.so.1) is not, so devices cannot be "
        "counted without initializing CUDA";
    dlclose(driver);
    return p;
  }
  using InitFn = int (*)();
  using CountFn = int (*)(unsigned int*);
  auto nvml_init = reinterpret_cast<InitFn>(dlsym(nvml, "nvmlInit_v2"));
  auto nvml_count = reinterpret_cast<CountFn>(dlsym(nvml, "nvmlDeviceGetCount_v2"));
  auto nvml_shutdown = reinterpret_cast<InitFn>(dlsym(nvml, "nvmlShutdown"));
  unsigned int count = 0;
  if (!nvml_init || !nvml_count || !nvml_shutdown) {
    p.reason = "NVML lacks nvmlInit_v2/nvmlDeviceGetCount_v2 (driver too old)";
  } else if (int rc = nvml_init(); rc != 0) {
    p.reason = str("nvmlInit_v2 failed with NVML error ", rc, " (driver not loaded or no permission)");
  } else {
    if (int rc2 = nvml_count(&count); rc2 != 0)
      p.reason = str("nvmlDeviceGetCount_v2 failed with NVML error ", rc2);
    nvml_shutdown();
  }
  dlclose(nvml);
  dlclose(driver);
  if (p.reason.empty() && count == 0) p.reason = "the NVIDIA driver is installed but reports no GPU";
  p.device_count = int(count);
  p.available = p.reason.empty();
#ifndef TC_HAVE_CUDA
  if (p.available) {
    p.available = false;
    p.reason = str(count, " GPU(s) present, but libtc was built without CUDA");
  }
#endif
  return p;
}

}  // namespace

const CudaProbe& cuda_probe() {
  static std::once_flag once;
  static CudaProbe* probe = nullptr;
  std::call_once(once, [] { probe = new CudaProbe(run_probe()); });
  return *probe;
}

}  // namespace tc
