// The CUDA backend's lazy stage and its DeviceHooks: device discovery,
// host/device copies, and the fork() guard. Runs only on first use of a cuda
// device (or tc_backend_init("cuda")), never inside tc_init, so a CUDA build
// loads and initializes on a machine without a driver.
#include "backend.h"

#include <cuda_runtime.h>
#include <pthread.h>

#include <atomic>
#include <mutex>

#include "cuda/blas.h"
#include "cuda/caching_allocator.h"
#include "cuda/cuda_check.h"
#include "cuda_probe.h"
#include "device_hooks.h"

namespace tc {

int cuda_fill_pattern(void* dst, int64_t n, int64_t element_size, const void* pattern);  // fill.cu
namespace cuda {
const Backend& backend_table();  // cuda_backend.cpp
}

namespace {

std::atomic<bool> g_initialized{false};   // the stage succeeded in this process
std::atomic<bool> g_forked_child{false};  // this process is a child forked after that
int g_device_count = 0;

void on_fork_child() {
  if (g_initialized.load()) {
    g_forked_child.store(true);
    set_cuda_hooks(nullptr);
  }
}

void copy(void* dst, int32_t dst_device, const void* src, int32_t src_device, int64_t nbytes) {
  const bool dst_host = (dst_device >> 16) == TC_DEVICE_CPU;
  const bool src_host = (src_device >> 16) == TC_DEVICE_CPU;
  const cudaMemcpyKind kind = dst_host ? (src_host ? cudaMemcpyHostToHost : cudaMemcpyDeviceToHost)
                                       : (src_host ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice);
  if (!dst_host)
    TC_CUDA_CHECK(cudaSetDevice(dst_device & 0xFFFF));
  else if (!src_host)
    TC_CUDA_CHECK(cudaSetDevice(src_device & 0xFFFF));
  if (kind == cudaMemcpyDeviceToDevice && (dst_device & 0xFFFF) != (src_device & 0xFFFF)) {
    TC_CUDA_CHECK(cudaMemcpyPeer(dst, dst_device & 0xFFFF, src, src_device & 0xFFFF, size_t(nbytes)));
    return;
  }
  // Synchronous on the default stream: every kernel libtc launches runs on
  // that stream, so the copy is ordered after them.
  TC_CUDA_CHECK(cudaMemcpy(dst, src, size_t(nbytes), kind));
}

void memset_zero(void* dst, int32_t index, int64_t nbytes) {
  TC_CUDA_CHECK(cudaSetDevice(index));
  TC_CUDA_CHECK(cudaMemset(dst, 0, size_t(nbytes)));
}

void fill(void* dst, int32_t index, int64_t n, int64_t element_size, const void* pattern) {
  TC_CUDA_CHECK(cudaSetDevice(index));
  TC_CUDA_CHECK(cuda_fill_pattern(dst, n, element_size, pattern));
}

int32_t device_count() { return g_device_count; }

const DeviceHooks kHooks = {
    cuda_cache_alloc, cuda_cache_free,  copy,         memset_zero, fill,
    cuda_cache_stats, cuda_cache_empty, device_count,
};

}  // namespace

[[noreturn]] void cuda_fail(const char* call, int error) {
  const cudaError_t e = cudaError_t(error);
  const int32_t code = e == cudaErrorMemoryAllocation ? TC_ERR_OUT_OF_MEMORY : TC_ERR_DEVICE;
  fail(code, str(call, " failed: ", cudaGetErrorName(e), ": ", cudaGetErrorString(e)));
}

bool cuda_forked_child() noexcept { return g_forked_child.load(); }

void cuda_backend_init() {
  TC_CHECK(!g_forked_child.load(), TC_ERR_DEVICE,
           "CUDA was initialized in the parent process before fork(); a forked child cannot use CUDA "
           "(start the child with exec/spawn instead)");
  const CudaProbe& probe = cuda_probe();
  TC_CHECK(probe.available, TC_ERR_UNAVAILABLE, probe.reason);
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  TC_CHECK(e == cudaSuccess, TC_ERR_UNAVAILABLE, "cudaGetDeviceCount failed: ", cudaGetErrorName(e), ": ",
           cudaGetErrorString(e));
  TC_CHECK(count > 0, TC_ERR_UNAVAILABLE, "cudaGetDeviceCount reports no device");
  static std::once_flag fork_handler;
  std::call_once(fork_handler, [] { pthread_atfork(nullptr, nullptr, on_fork_child); });
  g_device_count = count;
  g_initialized.store(true);
  set_cuda_hooks(&kHooks);
  register_backend(TC_DEVICE_CUDA, &cuda::backend_table());  // the ops' kernels on CUDA tensors
}

void cuda_backend_shutdown() {
  if (!g_initialized.load() || g_forked_child.load()) return;
  set_cuda_hooks(nullptr);
  register_backend(TC_DEVICE_CUDA, nullptr);
  cuda::blas_shutdown();  // cuBLAS handles and their workspaces (src/cuda/blas.cpp)
  cuda_cache_empty();     // every tensor is gone by now: give the cache back
}

bool cuda_backend_initialized() noexcept { return cuda_hooks() != nullptr; }

}  // namespace tc
