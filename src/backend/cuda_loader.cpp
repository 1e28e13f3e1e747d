// The cuda stage: opens the CUDA module (libtc_cuda.so) with dlopen, checks
// that it was built with this libtc, runs its init and registers its Backend
// and DeviceHooks tables. libtc.so itself links no CUDA library, so a process
// that never uses a GPU never maps cudart, cuBLAS or cuBLASLt.
//
// The module is $TC_CUDA_MODULE when set (a CPU-only build then has a lazy
// cuda stage too), else libtc_cuda.so in the directory of libtc.so itself
// (found with dladdr). Every failure (missing file, not a library, no entry
// point, another ABI version or build, no driver) fails this stage alone, with
// the path tried and the reason in the init report and tc_config.
#include "backend/cuda_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "backend/backend.h"
#include "backend/cuda_module_api.h"
#include "backend/linalg_backend.h"
#include "backend/rnn_device_layer.h"
#include "core/device_hooks.h"
#include "core/init.h"
#include "core/matmul_precision.h"
#include "ops/ops.h"

namespace tc {

namespace {

std::atomic<bool> g_initialized{false};   // the stage succeeded in this process
std::atomic<bool> g_forked_child{false};  // this process is a child forked after that
std::atomic<bool> g_failed{false};        // the stage's last run failed
std::atomic<int32_t> g_has_cudnn{0};      // of the loaded module

// The module once loaded (kept loaded until exit: the CUDA runtime inside
// registers exit handlers). Used only by the stage and shutdown, both under
// init's lock; other threads read the atomics above and g_path/g_status.
void* g_handle = nullptr;
tc_cuda_module_api g_api{};
std::mutex g_info_mu;
std::string g_path;    // the path last tried
std::string g_status;  // what happened to it

void set_info(const std::string& path, const std::string& status) {
  std::lock_guard<std::mutex> g(g_info_mu);
  g_path = path;
  g_status = status;
}

void on_fork_child() {
  if (g_initialized.load()) {
    g_forked_child.store(true);
    set_cuda_hooks(nullptr);
  }
}

tc_cuda_host_api make_host_api() {
  tc_cuda_host_api h{};
  h.size = sizeof h;
  h.abi_version = TC_CUDA_MODULE_ABI_VERSION;
  h.build_id = TC_CUDA_MODULE_BUILD_ID;
  h.layout = tc_cuda_layout();
#define TC_CUDA_HOST_FILL(ret, qualified, field, params, args, spec) h.field = &qualified;
  TC_CUDA_HOST_FUNCTIONS(TC_CUDA_HOST_FILL)
#undef TC_CUDA_HOST_FILL
  return h;
}

std::string dl_error(const char* fallback) {
  const char* e = dlerror();
  return e ? e : fallback;
}

// Throws TC_ERR_UNAVAILABLE with the path and the reason; on success the
// module is in g_handle / g_api.
void load_module() {
  if (g_handle) return;
  const std::string path = cuda_module_path();
  const auto unavailable = [&](const std::string& why) {
    set_info(path, "not loaded: " + why);
    fail(TC_ERR_UNAVAILABLE, str("the CUDA module ", path, " ", why));
  };
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) unavailable(str("could not be loaded: ", dl_error("dlopen failed")));
  auto entry = reinterpret_cast<tc_cuda_module_init_fn>(dlsym(handle, TC_CUDA_MODULE_ENTRY));
  if (!entry) {
    const std::string why = dl_error("symbol not found");
    dlclose(handle);
    unavailable(str("has no entry point ", TC_CUDA_MODULE_ENTRY, " (", why, ")"));
  }
  static const tc_cuda_host_api host = make_host_api();
  tc_cuda_module_api api{};
  api.size = sizeof api;
  const int32_t rc = entry(TC_CUDA_MODULE_ABI_VERSION, &host, &api);
  api.message[sizeof api.message - 1] = '\0';
  if (rc != TC_OK || api.abi_version != TC_CUDA_MODULE_ABI_VERSION) {
    std::string why = api.message[0] ? std::string(api.message) : str("its entry point failed with ", rc);
    if (api.abi_version != TC_CUDA_MODULE_ABI_VERSION)
      why = str("is of CUDA module ABI version ", api.abi_version, " but libtc needs version ",
                TC_CUDA_MODULE_ABI_VERSION, (api.message[0] ? ": " : ""), api.message);
    else
      why = "was refused: " + why;
    dlclose(handle);  // none of its code runs any more
    unavailable(why);
  }
  if (!api.backend || !api.hooks || !api.init || !api.shutdown) {
    dlclose(handle);
    unavailable("returned an incomplete table");
  }
  g_handle = handle;
  g_api = api;
  g_has_cudnn.store(api.has_cudnn ? 1 : 0);
  set_info(path, str("loaded (module ABI ", api.abi_version, ", ", api.versions ? api.versions : "?", ")"));
}

}  // namespace

void cuda_stage_body();

std::string cuda_module_path() {
  if (const char* env = std::getenv("TC_CUDA_MODULE"); env && *env) return env;
  Dl_info info{};
  // Any function of libtc: its file's directory holds the module.
  if (dladdr(reinterpret_cast<void*>(&cuda_module_path), &info) && info.dli_fname) {
    std::string self = info.dli_fname;
    const size_t slash = self.rfind('/');
    std::string dir = slash == std::string::npos ? std::string(".") : self.substr(0, slash);
    // An absolute directory, so the reports say where exactly it looked.
    if (char* real = realpath(dir.c_str(), nullptr)) {
      dir = real;
      std::free(real);
    }
    return dir + "/libtc_cuda.so";
  }
  return "libtc_cuda.so";
}

bool cuda_stage_configured() noexcept {
#ifdef TC_HAVE_CUDA
  return true;
#else
  const char* env = std::getenv("TC_CUDA_MODULE");
  return env && *env;
#endif
}

std::string cuda_module_status() {
  std::lock_guard<std::mutex> g(g_info_mu);
  if (g_path.empty()) return str(cuda_module_path(), ": not loaded yet (the cuda stage is lazy)");
  return g_path + ": " + g_status;
}

int32_t cuda_module_has_cudnn() noexcept { return g_has_cudnn.load(); }

bool cuda_forked_child() noexcept { return g_forked_child.load(); }

void cuda_backend_init() {
  try {
    cuda_stage_body();
    g_failed.store(false);
  } catch (...) {
    g_failed.store(true);
    throw;
  }
}

std::string cuda_module_unusable_reason() {
  if (!cuda_stage_configured()) return "libtc was built without CUDA";
  if (g_initialized.load() && !g_forked_child.load()) return "";
  if (g_failed.load()) {
    std::lock_guard<std::mutex> g(g_info_mu);
    return str("the cuda stage failed: ", g_path, ": ", g_status);
  }
  // Not run yet: only look for the file (loading maps the CUDA libraries).
  const std::string path = cuda_module_path();
  if (access(path.c_str(), R_OK) != 0) return str("the CUDA module ", path, " is missing or unreadable");
  return "";
}

void cuda_stage_body() {
  TC_CHECK(!g_forked_child.load(), TC_ERR_DEVICE,
           "CUDA was initialized in the parent process before fork(); a forked child cannot use CUDA "
           "(start the child with exec/spawn instead)");
  load_module();
  char msg[1024] = {0};
  const int32_t rc = g_api.init(msg, sizeof msg);
  msg[sizeof msg - 1] = '\0';
  if (rc != TC_OK) {
    const std::string why = msg[0] ? msg : str("its init failed with ", rc);
    std::string path;
    {
      std::lock_guard<std::mutex> g(g_info_mu);
      path = g_path;
    }
    fail(rc, str(why, " (the CUDA module ", path, " loaded; ", g_api.versions ? g_api.versions : "", ")"));
  }
  static std::once_flag fork_handler;
  std::call_once(fork_handler, [] { pthread_atfork(nullptr, nullptr, on_fork_child); });
  g_initialized.store(true);
  set_cuda_hooks(g_api.hooks);
  register_backend(TC_DEVICE_CUDA, g_api.backend);               // the ops' kernels on CUDA tensors
  register_linalg_backend(g_api.linalg);                         // cuSOLVER's factorizations
  rnn_fused::cuda_layer_kernels_slot().store(g_api.rnn_layers);  // cuDNN's recurrent layers
}

void cuda_backend_shutdown() {
  if (!g_initialized.load() || g_forked_child.load()) return;
  set_cuda_hooks(nullptr);
  register_backend(TC_DEVICE_CUDA, nullptr);
  register_linalg_backend(nullptr);
  rnn_fused::cuda_layer_kernels_slot().store(nullptr);
  g_api.shutdown();
}

bool cuda_backend_initialized() noexcept { return cuda_hooks() != nullptr; }

const tc_nccl_api* cuda_module_nccl() noexcept {
  return g_initialized.load() && !g_forked_child.load() ? g_api.nccl : nullptr;
}

}  // namespace tc
