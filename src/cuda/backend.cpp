// The CUDA module's stage and its DeviceHooks: device discovery, host/device
// copies, fills. The core's cuda stage (src/backend/cuda_loader.cpp) runs init() only
// on first use of a cuda device (or tc_backend_init("cuda")), never inside
// tc_init, and registers the tables once it succeeds; the fork() guard is the
// core's.
#include "backend/backend.h"

#include <cuda_runtime.h>

#include "backend/cuda_probe.h"
#include "core/device_hooks.h"
#include "cuda/blas.h"
#include "cuda/caching_allocator.h"
#include "cuda/cuda_check.h"
#include "cuda/cudnn.h"
#include "cuda/cudnn_rnn.h"
#include "cuda/cusolver_linalg.h"
#include "cuda/module.h"

namespace tc {

int cuda_fill_pattern(void* dst, int64_t n, int64_t element_size, const void* pattern);  // fill.cu

namespace cuda {
namespace {

int g_device_count = 0;

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

const DeviceHooks& hooks_table() { return kHooks; }

void stage_init() {
  // The core's probe (NVML, no CUDA context) first: its reason says more
  // than the runtime's when no driver or GPU is there.
  const CudaProbe& probe = cuda_probe();
  TC_CHECK(probe.available, TC_ERR_UNAVAILABLE, probe.reason);
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  TC_CHECK(e == cudaSuccess, TC_ERR_UNAVAILABLE, "cudaGetDeviceCount failed: ", cudaGetErrorName(e), ": ",
           cudaGetErrorString(e));
  TC_CHECK(count > 0, TC_ERR_UNAVAILABLE, "cudaGetDeviceCount reports no device");
  g_device_count = count;
}

void stage_shutdown() noexcept {
#ifdef TC_HAVE_CUDNN
  cudnn_shutdown();  // cuDNN handles (src/cuda/cudnn.cpp)
  rnn_shutdown();    // the RNN handles and cached descriptors (src/cuda/cudnn_rnn.cpp)
#endif
  blas_shutdown();
  linalg_shutdown();   // cuSOLVER handles (src/cuda/cusolver_linalg.cpp)     // cuBLAS handles and their
                       // workspaces (src/cuda/blas.cpp)
  cuda_cache_empty();  // every tensor is gone by now: give the cache back
}

}  // namespace cuda

[[noreturn]] void cuda_fail(const char* call, int error) {
  const cudaError_t e = cudaError_t(error);
  const int32_t code = e == cudaErrorMemoryAllocation ? TC_ERR_OUT_OF_MEMORY : TC_ERR_DEVICE;
  fail(code, str(call, " failed: ", cudaGetErrorName(e), ": ", cudaGetErrorString(e)));
}

}  // namespace tc
