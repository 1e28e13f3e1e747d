// The default generator on CUDA tensors (src/cuda/random.cu): the Philox
// stream of src/math/philox.h, the same numbers as the CPU path (src/cpu/random_optim.cpp).
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "math/philox.h"

namespace tc::cuda {

// t: a contiguous floating tensor on a CUDA device with at least one
// element. Element i gets sample i of the request whose first Philox counter
// is `offset` (4 samples per counter for float32/float16/bfloat16, made in
// float; 2 for float64).
void fill_random(const Tensor& t, RandDist dist, double a, double b, uint64_t seed, uint64_t offset);

}  // namespace tc::cuda
