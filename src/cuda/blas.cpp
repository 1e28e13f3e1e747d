// cuBLAS for the CUDA matmul: one handle per device, made on first use and
// destroyed by the cuda stage's shutdown, each with a fixed 32 MiB workspace
// (cuBLAS's recommendation for Hopper). Row-major products are computed as
// their column-major transposes: C^T = B^T A^T, so A and B swap places.
#include "cuda/blas.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <mutex>
#include <vector>

#include "core/error.h"
#include "cuda/cuda_check.h"

namespace tc::cuda {
namespace {

constexpr size_t kWorkspaceBytes = size_t(32) << 20;

struct DeviceBlas {
  std::mutex mu;  // a handle is used by one thread at a time
  cublasHandle_t handle = nullptr;
  void* workspace = nullptr;
};

struct Registry {
  std::mutex mu;
  std::vector<DeviceBlas*> devices;  // by index; never shrinks until shutdown
};
Registry& registry() {
  static Registry* r = new Registry();  // outlives static destruction
  return *r;
}

[[noreturn]] void blas_fail(const char* call, cublasStatus_t s) {
  fail(TC_ERR_DEVICE, str(call, " failed: ", cublasGetStatusName(s), ": ", cublasGetStatusString(s)));
}
#define TC_CUBLAS_CHECK(call)                                                \
  do {                                                                       \
    const cublasStatus_t tc_blas_st_ = (call);                               \
    if (tc_blas_st_ != CUBLAS_STATUS_SUCCESS) blas_fail(#call, tc_blas_st_); \
  } while (0)

// The device's entry, its handle made on first use (under the entry's lock).
DeviceBlas& device_blas(int32_t index) {
  Registry& r = registry();
  DeviceBlas* d;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    if (size_t(index) >= r.devices.size()) r.devices.resize(size_t(index) + 1, nullptr);
    if (!r.devices[size_t(index)]) r.devices[size_t(index)] = new DeviceBlas();
    d = r.devices[size_t(index)];
  }
  return *d;
}

void ensure_handle(DeviceBlas& d) {
  if (d.handle) return;
  cublasHandle_t h = nullptr;
  TC_CUBLAS_CHECK(cublasCreate(&h));
  void* ws = nullptr;
  const cudaError_t e = cudaMalloc(&ws, kWorkspaceBytes);
  if (e != cudaSuccess) {
    cublasDestroy(h);
    cuda_fail("cudaMalloc(cuBLAS workspace)", int(e));
  }
  const cublasStatus_t s = cublasSetWorkspace(h, ws, kWorkspaceBytes);
  if (s != CUBLAS_STATUS_SUCCESS) {
    cublasDestroy(h);
    cudaFree(ws);
    blas_fail("cublasSetWorkspace", s);
  }
  // The default stream: the allocator and the copies assume all work runs there.
  cublasSetStream(h, nullptr);
  d.handle = h;
  d.workspace = ws;
}

cudaDataType_t data_type(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return CUDA_R_32F;
    case DType::f64:
      return CUDA_R_64F;
    case DType::f16:
      return CUDA_R_16F;
    case DType::bf16:
      return CUDA_R_16BF;
    default:
      fail(TC_ERR_DTYPE, str("matmul on CUDA: expected a floating tensor but got ", dtype_name(dtype)));
  }
}

cublasComputeType_t compute_type(DType dtype) {
  if (dtype == DType::f64) return CUBLAS_COMPUTE_64F;
  if (dtype != DType::f32) return CUBLAS_COMPUTE_32F;  // float16/bfloat16: fp32 accumulation
  // As torch.set_float32_matmul_precision: "high" and "medium" let float32
  // products use TF32 tensor cores (cuBLAS offers no bf16x3 for float32).
  return matmul_precision() == TC_MATMUL_PRECISION_HIGHEST ? CUBLAS_COMPUTE_32F
                                                           : CUBLAS_COMPUTE_32F_FAST_TF32;
}

}  // namespace

void gemm(DType dtype, int32_t device_index, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
          const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb, int64_t stride_b,
          double beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch) {
  if (m == 0 || n == 0 || batch == 0) return;
  const cudaDataType_t type = data_type(dtype);
  const cublasComputeType_t compute = compute_type(dtype);
  const double alpha64 = 1.0, beta64 = beta;
  const float alpha32 = 1.0f, beta32 = float(beta);
  const void* alpha = compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&alpha64) : &alpha32;
  const void* betap = compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&beta64) : &beta32;
  // Column-major view: C^T (n x m) = op(B)^T (n x k) op(A)^T (k x m).
  const cublasOperation_t op_first = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_second = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  TC_CUDA_CHECK(cudaSetDevice(device_index));
  DeviceBlas& d = device_blas(device_index);
  std::lock_guard<std::mutex> lock(d.mu);
  ensure_handle(d);
  if (batch == 1) {
    TC_CUBLAS_CHECK(cublasGemmEx_64(d.handle, op_first, op_second, n, m, k, alpha, b, type, ldb, a, type, lda,
                                    betap, c, type, ldc, compute, CUBLAS_GEMM_DEFAULT));
  } else {
    TC_CUBLAS_CHECK(cublasGemmStridedBatchedEx_64(d.handle, op_first, op_second, n, m, k, alpha, b, type, ldb,
                                                  stride_b, a, type, lda, stride_a, betap, c, type, ldc,
                                                  stride_c, batch, compute, CUBLAS_GEMM_DEFAULT));
  }
}

void blas_shutdown() noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (DeviceBlas*& d : r.devices) {
    if (!d) continue;
    if (d->handle) {
      cudaSetDevice(int(&d - r.devices.data()));
      cublasDestroy(d->handle);
      cudaFree(d->workspace);
    }
    delete d;
    d = nullptr;
  }
  r.devices.clear();
}

}  // namespace tc::cuda
