// The adaptive pooling CUDA kernels (src/cuda/adaptive_pool.cu), with the
// Backend's contracts (src/backend/backend.h): y (and argmax) from contiguous x; the
// backwards write all of gx.
#pragma once
#include "core/tensor.h"
#include "math/adaptive_pool.h"

namespace tc::cuda {

void adaptive_avg_pool2d(const Tensor& y, const Tensor& x, const AdaptivePoolGeom& g);
void adaptive_avg_pool2d_backward(const Tensor& gx, const Tensor& gy, const AdaptivePoolGeom& g);
void adaptive_max_pool2d(const Tensor& y, const Tensor& argmax, const Tensor& x, const AdaptivePoolGeom& g);
void adaptive_max_pool2d_backward(const Tensor& gx, const Tensor& gy, const Tensor& argmax,
                                  const AdaptivePoolGeom& g);

}  // namespace tc::cuda
