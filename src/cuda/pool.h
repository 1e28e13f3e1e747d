// The pooling CUDA kernels (src/cuda/pool.cu), with the Backend's contracts
// (src/backend/backend.h): max_pool2d's y and argmax from contiguous x, gx (zeros)
// += gy at the argmax positions; average pooling of any PoolGeom (cuDNN's,
// src/cuda/cudnn.cpp, takes the plain ones: plain_avg_pool).
#pragma once
#include "core/tensor.h"
#include "math/conv_geom.h"

namespace tc::cuda {

void max_pool2d(const Tensor& y, const Tensor& argmax, const Tensor& x, const PoolGeom& g);
void max_pool2d_backward(const Tensor& gx, const Tensor& gy, const Tensor& argmax, const PoolGeom& g);
void avg_pool2d_direct(const Tensor& y, const Tensor& x, const PoolGeom& g);
void avg_pool2d_direct_backward(const Tensor& gx, const Tensor& gy, const PoolGeom& g);

// Whether cuDNN's average pooling computes g: count_include_pad, no divisor
// override, and the floor output sizes (no ceil_mode window).
inline bool plain_avg_pool(const PoolGeom& g) {
  return g.count_include_pad && g.divisor == 0 && g.ho == (g.h + 2 * g.ph - g.kh) / g.sh + 1 &&
         g.wo == (g.w + 2 * g.pw - g.kw) / g.sw + 1;
}

}  // namespace tc::cuda
