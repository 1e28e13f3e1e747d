// 2-D max and average pooling of a checked geometry (src/ops/conv.cpp): the
// backend's kernels and the autograd node, shared by max_pool2d/avg_pool2d
// and by max_pool2d_with_indices/avg_pool2d_ex (dilation, ceil_mode,
// count_include_pad, divisor_override: src/ops/nn_layers.cpp).
#pragma once
#include <utility>

#include "core/tensor.h"
#include "math/conv_geom.h"

namespace tc::ops::detail {

// x [N, C, H, W] float; g from it. Returns y and the int64 argmax (flat
// index within each H * W plane, PyTorch's indices).
std::pair<Tensor, Tensor> max_pool2d_geom(const Tensor& x, const PoolGeom& g);
Tensor avg_pool2d_geom(const Tensor& x, const PoolGeom& g);

}  // namespace tc::ops::detail
