// Launch helpers shared by the grid-stride kernels of src/cuda/*.cu: a 1-D
// grid of 256-thread blocks covering n elements, capped at 65535 * 8 blocks
// (each kernel loops over the rest), and a tensor's data as T* (null for a
// null tensor: the kernels' optional operands).
#pragma once
#include <cstdint>

#include "tensor.h"

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

}  // namespace tc::cuda
