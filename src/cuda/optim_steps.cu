// RMSprop and Adagrad as one fused kernel per parameter: each thread updates
// its elements of the weight and the optimizer state in one pass, with the
// CPU's per-element math (src/math/optim_math.h).
#include <cuda_runtime.h>

#include "cuda/cuda_check.h"
#include "cuda/launch.cuh"
#include "cuda/optim.h"

namespace tc::cuda {
namespace {

template <typename T>
__global__ void rmsprop_kernel(T* w, const T* g, T* sq, T* gavg, T* buf, int64_t n, optim::RmspropStep s) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    optim::rmsprop_update(w[i], g[i], sq[i], gavg ? gavg + i : nullptr, buf ? buf + i : nullptr, s);
}

template <typename T>
__global__ void adagrad_kernel(T* w, const T* g, T* sum, int64_t n, optim::AdagradStep s) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    optim::adagrad_update(w[i], g[i], sum[i], s);
}

}  // namespace

void rmsprop_step(const Tensor& w, const Tensor& g, const Tensor& sq, const Tensor& gavg, const Tensor& buf,
                  const optim::RmspropStep& s) {
  const int64_t n = w->numel();
  if (n == 0) return;
  TC_CUDA_CHECK(cudaSetDevice(device_index(w->device)));
  const Grid gr = grid_for(n);
  if (w->dtype == DType::f32) {
    rmsprop_kernel<float><<<gr.blocks, gr.threads>>>(ptr<float>(w), ptr<float>(g), ptr<float>(sq),
                                                     ptr<float>(gavg), ptr<float>(buf), n, s);
  } else if (w->dtype == DType::f64) {
    rmsprop_kernel<double><<<gr.blocks, gr.threads>>>(ptr<double>(w), ptr<double>(g), ptr<double>(sq),
                                                      ptr<double>(gavg), ptr<double>(buf), n, s);
  } else {
    fail(TC_ERR_DTYPE,
         str("rmsprop: expected a float32 or float64 parameter but got ", dtype_name(w->dtype)));
  }
  TC_CUDA_CHECK(cudaGetLastError());
}

void adagrad_step(const Tensor& w, const Tensor& g, const Tensor& sum, const optim::AdagradStep& s) {
  const int64_t n = w->numel();
  if (n == 0) return;
  TC_CUDA_CHECK(cudaSetDevice(device_index(w->device)));
  const Grid gr = grid_for(n);
  if (w->dtype == DType::f32) {
    adagrad_kernel<float><<<gr.blocks, gr.threads>>>(ptr<float>(w), ptr<float>(g), ptr<float>(sum), n, s);
  } else if (w->dtype == DType::f64) {
    adagrad_kernel<double><<<gr.blocks, gr.threads>>>(ptr<double>(w), ptr<double>(g), ptr<double>(sum), n, s);
  } else {
    fail(TC_ERR_DTYPE,
         str("adagrad: expected a float32 or float64 parameter but got ", dtype_name(w->dtype)));
  }
  TC_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tc::cuda
