// The geometry of conv2d/conv3d and the 2-D pooling ops (NCHW, NCDHW), as
// the ops compute it from their arguments and every backend's kernels read it.
#pragma once
#include <cstdint>

namespace tc {

struct ConvGeom {
  int64_t n, c, h, w;      // input
  int64_t o, kh, kw;       // weight
  int64_t groups, cg, og;  // per-group channels
  int64_t sh, sw, ph, pw, dh, dw;
  int64_t ho, wo;
  // conv3d's depth axis (input, kernel, stride, padding, dilation, output);
  // a 2-D convolution keeps them trivial.
  int64_t id = 1, kd = 1, sd = 1, pd = 0, dd = 1, od = 1;
  bool is_3d() const { return id != 1 || kd != 1 || sd != 1 || pd != 0 || dd != 1 || od != 1; }
  int64_t col_rows() const { return cg * kd * kh * kw; }
  int64_t plane() const { return od * ho * wo; }
  int64_t in_plane() const { return id * h * w; }
};

// planes = N * C; ho, wo as the op computed them (floor or ceil_mode). The
// trailing members default to plain pooling: no dilation, PyTorch's
// count_include_pad averages, no divisor_override (0).
struct PoolGeom {
  int64_t planes, h, w, kh, kw, sh, sw, ph, pw, ho, wo;
  int64_t dh = 1, dw = 1;
  bool count_include_pad = true;
  int64_t divisor = 0;
};

}  // namespace tc
