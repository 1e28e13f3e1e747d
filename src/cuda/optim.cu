// SGD and Adam/AdamW as one fused kernel per parameter: each thread updates
// its elements of the weight and the optimizer state in one pass, with the
// CPU's per-element math (src/math/optim_math.h).
#include <cuda_runtime.h>

#include "cuda/cuda_check.h"
#include "cuda/launch.cuh"
#include "cuda/optim.h"

namespace tc::cuda {
namespace {

template <typename T>
__global__ void sgd_kernel(T* w, const T* g, T* buf, int64_t n, optim::SgdStep s) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    optim::sgd_update(w[i], g[i], buf ? buf + i : nullptr, s);
}

template <typename T>
__global__ void adam_kernel(T* w, const T* g, T* m, T* v, int64_t n, optim::AdamStep s) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    optim::adam_update(w[i], g[i], m[i], v[i], s);
}

}  // namespace

void sgd_step(const Tensor& w, const Tensor& g, const Tensor& buf, const optim::SgdStep& s) {
  const int64_t n = w->numel();
  if (n == 0) return;
  TC_CUDA_CHECK(cudaSetDevice(device_index(w->device)));
  const Grid gr = grid_for(n);
  if (w->dtype == DType::f32) {
    sgd_kernel<float><<<gr.blocks, gr.threads>>>(ptr<float>(w), ptr<float>(g), ptr<float>(buf), n, s);
  } else if (w->dtype == DType::f64) {
    sgd_kernel<double><<<gr.blocks, gr.threads>>>(ptr<double>(w), ptr<double>(g), ptr<double>(buf), n, s);
  } else {
    fail(TC_ERR_DTYPE, str("sgd: expected a float32 or float64 parameter but got ", dtype_name(w->dtype)));
  }
  TC_CUDA_CHECK(cudaGetLastError());
}

void adam_step(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v, const optim::AdamStep& s) {
  const int64_t n = w->numel();
  if (n == 0) return;
  TC_CUDA_CHECK(cudaSetDevice(device_index(w->device)));
  const Grid gr = grid_for(n);
  if (w->dtype == DType::f32) {
    adam_kernel<float>
        <<<gr.blocks, gr.threads>>>(ptr<float>(w), ptr<float>(g), ptr<float>(m), ptr<float>(v), n, s);
  } else if (w->dtype == DType::f64) {
    adam_kernel<double>
        <<<gr.blocks, gr.threads>>>(ptr<double>(w), ptr<double>(g), ptr<double>(m), ptr<double>(v), n, s);
  } else {
    fail(TC_ERR_DTYPE, str("adam: expected a float32 or float64 parameter but got ", dtype_name(w->dtype)));
  }
  TC_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tc::cuda
