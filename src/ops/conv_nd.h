// conv3d, conv_transpose3d and the convolution ops' shared pieces (src/ops/conv.cpp, src/ops/conv_nd.cpp):
// the forward of a checked geometry with its autograd node, and the
// transposed convolution of any of 1-3 spatial dims.
#pragma once
#include "core/tensor.h"
#include "math/conv_geom.h"

namespace tc::ops {

// x [N, C, D, H, W], weight [O, C/groups, kD, kH, kW]; 3 entries each.
Tensor conv3d(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[3],
              const int64_t padding[3], const int64_t dilation[3], int64_t groups);
// x [N, C, D, H, W], weight [C, O/groups, kD, kH, kW]; 3 entries each.
Tensor conv_transpose3d(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[3],
                        const int64_t padding[3], const int64_t output_padding[3], const int64_t dilation[3],
                        int64_t groups);

}  // namespace tc::ops

namespace tc::ops::detail {

// y = conv(x, w) + bias for x [N, C, H, W] (or [N, C, D, H, W] with g's depth
// axis), g checked by the caller; records ConvolutionBackward.
Tensor conv_geom_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeom& g);

// Transposed convolution over the last nd (2 or 3) dims of x [N, C, *]:
// the backward-data pass of the convolution whose input is the result (no
// zero-stuffed input), with its own backward. Arrays have nd entries.
Tensor conv_transpose_nd(const Tensor& x, const Tensor& w, const Tensor& bias, int nd, const int64_t* stride,
                         const int64_t* padding, const int64_t* output_padding, const int64_t* dilation,
                         int64_t groups, const char* op);

}  // namespace tc::ops::detail
