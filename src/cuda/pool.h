// max_pool2d's CUDA kernels (src/cuda/pool.cu), with the Backend's contracts
// (src/backend.h): y and the argmax from contiguous x; gx (zeros) += gy at
// the argmax positions.
#pragma once
#include "math/conv_geom.h"
#include "tensor.h"

namespace tc::cuda {

void max_pool2d(const Tensor& y, const Tensor& argmax, const Tensor& x, const PoolGeom& g);
void max_pool2d_backward(const Tensor& gx, const Tensor& gy, const Tensor& argmax, const PoolGeom& g);

}  // namespace tc::cuda
