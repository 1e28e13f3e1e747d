// Kernels of the core: fill a device buffer with one element's byte pattern
// (full(), ones() on cuda without staging through the host).
#include <cuda_runtime.h>

#include <cstdint>

namespace {

template <typename T>
__global__ void fill_pattern(T* dst, int64_t n, T value) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    dst[i] = value;
  }
}

template <typename T>
int launch(void* dst, int64_t n, const void* pattern) {
  const T value = *static_cast<const T*>(pattern);
  const int threads = 256;
  const int64_t blocks64 = (n + threads - 1) / threads;
  const int blocks = int(blocks64 < 65535 ? blocks64 : 65535);
  fill_pattern<T><<<blocks, threads>>>(static_cast<T*>(dst), n, value);
  return int(cudaGetLastError());
}

}  // namespace

namespace tc {
// n elements of element_size bytes (1, 2, 4 or 8) set to *pattern; returns a cudaError_t.
int cuda_fill_pattern(void* dst, int64_t n, int64_t element_size, const void* pattern) {
  switch (element_size) {
    case 1:
      return launch<uint8_t>(dst, n, pattern);
    case 2:
      return launch<uint16_t>(dst, n, pattern);
    case 4:
      return launch<uint32_t>(dst, n, pattern);
    case 8:
      return launch<uint64_t>(dst, n, pattern);
  }
  return int(cudaErrorInvalidValue);
}
}  // namespace tc
