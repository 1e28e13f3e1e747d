// The Philox generator as a CUDA kernel: one thread per Philox call (4 float
// or 2 double samples), the math of src/philox.h, so that a CUDA tensor gets
// the numbers a CPU tensor of the same shape would for the same seed.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "cuda/cuda_check.h"
#include "cuda/random.h"

namespace tc::cuda {
namespace {

// float -> the stored type, rounded to nearest even (as the CPU's Half and
// BFloat16 conversions are).
template <typename T>
__device__ T store_as(float x);
template <>
__device__ float store_as<float>(float x) {
  return x;
}
template <>
__device__ __half store_as<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ __nv_bfloat16 store_as<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

// W: float or double (the sample type); T: the stored type.
template <typename W, typename T>
__global__ void philox_fill(T* out, int64_t n, RandDist dist, double a, double b, uint64_t seed,
                            uint64_t offset) {
  constexpr int64_t per = sizeof(W) == 4 ? 4 : 2;
  const int64_t calls = (n + per - 1) / per;
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < calls;
       c += int64_t(gridDim.x) * blockDim.x) {
    W v[4];
    philox_samples<W>(seed, offset + uint64_t(c), dist, a, b, v);
    const int64_t base = c * per;
    for (int64_t k = 0; k < per && base + k < n; ++k) {
      if constexpr (sizeof(W) == 8) {
        out[base + k] = v[k];
      } else {
        out[base + k] = store_as<T>(v[k]);
      }
    }
  }
}

template <typename W, typename T>
void launch(const Tensor& t, RandDist dist, double a, double b, uint64_t seed, uint64_t offset) {
  const int64_t n = t->numel();
  constexpr int64_t per = sizeof(W) == 4 ? 4 : 2;
  const int64_t calls = (n + per - 1) / per;
  const int threads = 256;
  const int64_t blocks64 = (calls + threads - 1) / threads;
  const int blocks = int(blocks64 < 65535 * 8 ? blocks64 : 65535 * 8);
  philox_fill<W, T><<<blocks, threads>>>(static_cast<T*>(t->data()), n, dist, a, b, seed, offset);
  TC_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void fill_random(const Tensor& t, RandDist dist, double a, double b, uint64_t seed, uint64_t offset) {
  TC_CUDA_CHECK(cudaSetDevice(device_index(t->device)));
  switch (t->dtype) {
    case DType::f32:
      return launch<float, float>(t, dist, a, b, seed, offset);
    case DType::f64:
      return launch<double, double>(t, dist, a, b, seed, offset);
    case DType::f16:
      return launch<float, __half>(t, dist, a, b, seed, offset);
    case DType::bf16:
      return launch<float, __nv_bfloat16>(t, dist, a, b, seed, offset);
    default:
      fail(TC_ERR_DTYPE, str("random fill: expected a floating tensor but got ", dtype_name(t->dtype)));
  }
}

}  // namespace tc::cuda
