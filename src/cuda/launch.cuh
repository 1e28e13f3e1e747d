// Launch helpers shared by the grid-stride kernels of src/cuda/*.cu: a 1-D
// grid of 256-thread blocks covering n elements, capped at 65535 * 8 blocks
// (each kernel loops over the rest), a tensor's data as T* (null for a
// null tensor: the kernels' optional operands), and the host side of a
// launch over an output's elements for each float dtype.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "core/tensor.h"
#include "cuda/cuda_check.h"
#include "cuda/device_types.cuh"

namespace tc::cuda {

struct Grid {
  int blocks, threads;
};

inline Grid grid_for(int64_t n) {
  const int threads = 256;
  const int64_t blocks64 = (n + threads - 1) / threads;
  return {int(blocks64 < 65535 * 8 ? blocks64 : 65535 * 8), threads};
}

template <typename T>
T* ptr(const Tensor& t) {
  return t ? static_cast<T*>(t->data()) : nullptr;
}

// One grid-stride kernel over out's elements (nothing for none): on out's
// device, launch(T(), grid) starts the kernel for out's element type T
// (dispatch_float: `what` names the op in its dtype error), and the launch is
// checked.
template <typename F>
void launch_float_kernel(const Tensor& out, const char* what, F&& launch) {
  const int64_t n = out->numel();
  if (n == 0) return;
  TC_CUDA_CHECK(cudaSetDevice(device_index(out->device)));
  const Grid grid = grid_for(n);
  dispatch_float(out->dtype, what, [&](auto t) { launch(t, grid); });
  TC_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tc::cuda
