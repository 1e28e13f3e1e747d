// float32 convolution on oneDNN's convolution primitives (forward, backward
// data, backward weights + bias), 1-D to 3-D, for the CPU backend's conv
// entry points (src/cpu/conv.cpp). Tensors stay plain (NC + spatial, dense) at
// the boundary; inside, oneDNN picks its blocked layouts and the primitives
// with their reorders are cached per geometry and thread count.
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "math/conv_geom.h"

namespace tc::cpu {

// A convolution in oneDNN's terms: nd spatial dims (1..3), per-dim input,
// kernel, output sizes, stride, padding before/after and PyTorch's dilation
// (>= 1; oneDNN's is one less).
struct ConvNd {
  int nd = 2;
  int64_t n = 0, c = 0, o = 0, groups = 1;
  int64_t in[3] = {}, k[3] = {}, out[3] = {}, stride[3] = {}, pad_l[3] = {}, pad_r[3] = {}, dil[3] = {};
};

ConvNd conv_nd_of(const ConvGeom& g);

// Whether the oneDNN path runs this convolution's forward or backward pass
// (float32, not in deterministic mode, a shape where it measured faster than
// im2col + GEMM).
bool onednn_conv_wanted(const ConvNd& g, DType dtype, bool backward);

// y = conv(x, w) + bias; every tensor dense and plain; bias may be null.
// False (nothing written) when oneDNN has no primitive for the geometry.
bool onednn_conv_forward(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias,
                         const ConvNd& g);
// Writes (overwrites) whichever of gx, gw, gb is not null; false as above.
bool onednn_conv_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& x,
                          const Tensor& w, const Tensor& gy, const ConvNd& g);

// Drops every cached primitive and weight copy (tc_shutdown).
void onednn_conv_cache_clear() noexcept;

}  // namespace tc::cpu
