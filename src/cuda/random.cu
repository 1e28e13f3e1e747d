// The Philox generator as a CUDA kernel: one thread per Philox call (4 float
// or 2 double samples), the math of src/math/philox.h, so that a CUDA tensor gets
// the numbers a CPU tensor of the same shape would for the same seed.
#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/cuda_check.h"
#include "cuda/device_types.cuh"
#include "cuda/random.h"

namespace tc::cuda {
namespace {

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
      out[base + k] = from_compute<T>(v[k]);  // 16-bit floats rounded to nearest even, as on the CPU
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
  dispatch_float(t->dtype, "random fill", [&](auto tag) {
    using T = decltype(tag);
    using W = std::conditional_t<std::is_same_v<T, double>, double, float>;  // the sample type
    launch<W, T>(t, dist, a, b, seed, offset);
  });
}

}  // namespace tc::cuda
