// Neural-network layers: the norms (batch, group, instance) and the
// generalized pooling (dilation, ceil_mode, count_include_pad,
// divisor_override) check their arguments here and run the backend's fused
// kernels (src/ops/norm_layers.cpp, src/ops/conv.cpp). The others are
// composed of existing ops (asymmetric convolutions,
// resampling, pixel shuffle, embedding with padding_idx, channel dropout:
// matmul, index_select, conv2d, reductions, views), so autograd records the
// ops they are made of and their gradient is theirs. Host-built tables
// (interpolation matrices) depend only on the geometry. Adaptive pooling has
// its own kernels (src/ops/adaptive_pool.cpp); transposed convolutions are
// src/ops/conv_nd.cpp's.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.h"
#include "core/init.h"
#include "math/rows/compare_eq.h"
#include "ops/conv_nd.h"
#include "ops/nn_util.h"
#include "ops/norm_layers.h"
#include "ops/ops.h"
#include "ops/pooling.h"

namespace tc::ops {
namespace {

// Keeps every geometry product far from int64 overflow (as conv.cpp).
constexpr int64_t kMaxGeometry = int64_t(1) << 31;

void check_float(const Tensor& t, const char* op, const char* arg) {
  TC_CHECK(device_type(t->device) == TC_DEVICE_CPU || device_type(t->device) == TC_DEVICE_CUDA,
           TC_ERR_NOT_IMPLEMENTED, op, ": ", arg, " is on ", device_name(t->device), ", where ", op,
           " is not implemented");
  TC_CHECK(t->dtype == DType::f32 || t->dtype == DType::f64, TC_ERR_DTYPE, op, ": ", arg,
           " must be float32 or float64 but is ", dtype_name(t->dtype));
}

// An optional per-channel tensor ([C], x's dtype and device).
void check_channel_vec(const Tensor& x, const Tensor& t, int64_t c, const char* op, const char* arg) {
  if (!t) return;
  check_float(t, op, arg);
  detail::check_same_dtype(x, t, op, "input", arg);
  TC_CHECK(t->device == x->device, TC_ERR_DEVICE, op, ": ", arg, " is on ", device_name(t->device),
           " but input is on ", device_name(x->device));
  TC_CHECK(t->ndim() == 1 && t->shape[0] == c, TC_ERR_SHAPE, op, ": ", arg, " must have shape [", c,
           "] but has shape ", t->shape);
}

void check_range(int64_t v, int64_t lo, const char* op, const char* what) {
  TC_CHECK(v >= lo && v <= kMaxGeometry, TC_ERR_INVALID_ARGUMENT, op, ": ", what, " must be in [", lo,
           ", 2^31] but is ", v);
}

// A float tensor of host values (shape given), in dtype on device.
Tensor value_tensor(const std::vector<double>& v, const Dims& shape, DType dtype, Device device) {
  Tensor t = empty(shape, DType::f64);
  std::copy(v.begin(), v.end(), t->data_as<double>());
  t = cast(t, dtype);
  return device == kCPU ? t : tc::to_device(t, device);
}

// x padded along dim by `before` and `after` elements of value (negative
// amounts crop), through cat/narrow so that gradients flow.
Tensor pad_dim(const Tensor& x, int64_t dim, int64_t before, int64_t after, double value) {
  Tensor y = x;
  if (before < 0) y = narrow(y, dim, -before, y->shape[dim] + before);
  if (after < 0) y = narrow(y, dim, 0, y->shape[dim] + after);
  std::vector<Tensor> parts;
  auto block = [&](int64_t n) {
    Dims s = y->shape;
    s[dim] = n;
    return full(s, value, y->dtype, y->device);
  };
  if (before > 0) parts.push_back(block(before));
  parts.push_back(y);
  if (after > 0) parts.push_back(block(after));
  return parts.size() == 1 ? y : cat(parts, dim);
}

// ------------------------------------------------------------ pooling --

// The output size along one axis as PyTorch's pooling_output_shape.
int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  if (span < 0) return 0;
  int64_t o = (ceil_mode ? span + s - 1 : span) / s + 1;
  // The last window must start inside the input or its left padding.
  if (ceil_mode && (o - 1) * s >= in + p) --o;
  return o;
}

void check_pool_input(const Tensor& x, const char* op) {
  check_float(x, op, "x");
  TC_CHECK(x->ndim() == 4, TC_ERR_SHAPE, op, ": x must be [N, C, H, W] but has shape ", x->shape);
}

struct PoolArgs {
  int64_t k[2], s[2], p[2], d[2], o[2];
};

PoolArgs pool_args(const Tensor& x, const int64_t* kernel, const int64_t* stride, const int64_t* padding,
                   const int64_t* dilation, bool ceil_mode, const char* op) {
  check_pool_input(x, op);
  PoolArgs a{};
  for (int i = 0; i < 2; ++i) {
    a.k[i] = kernel[i], a.s[i] = stride ? stride[i] : kernel[i], a.p[i] = padding[i];
    a.d[i] = dilation ? dilation[i] : 1;
    check_range(a.k[i], 1, op, "kernel");
    check_range(a.s[i], 1, op, "stride");
    check_range(a.p[i], 0, op, "padding");
    check_range(a.d[i], 1, op, "dilation");
    TC_CHECK(a.p[i] * 2 <= a.k[i], TC_ERR_INVALID_ARGUMENT, op, ": padding [", padding[0], ", ", padding[1],
             "] must be at most half the kernel [", kernel[0], ", ", kernel[1], "]");
    const int64_t in = x->shape[2 + i];
    a.o[i] = pool_out(in, a.k[i], a.s[i], a.p[i], a.d[i], ceil_mode);
    TC_CHECK(a.o[i] >= 1, TC_ERR_SHAPE, op, ": the (dilated) kernel [", a.k[0], ", ", a.k[1],
             "] is larger than the padded input of shape ", x->shape);
  }
  return a;
}

// The kernels' geometry (src/backend/backend.h) of checked arguments.
PoolGeom pool_geom(const Tensor& x, const PoolArgs& a) {
  PoolGeom g{x->shape[0] * x->shape[1],
             x->shape[2],
             x->shape[3],
             a.k[0],
             a.k[1],
             a.s[0],
             a.s[1],
             a.p[0],
             a.p[1],
             a.o[0],
             a.o[1]};
  g.dh = a.d[0], g.dw = a.d[1];
  return g;
}

// Interpolation matrix [out, in] of one axis (PyTorch 1.13's source indices).
Tensor interp_matrix(int64_t in, int64_t out, double scale_factor, int32_t mode, bool align_corners,
                     DType dtype, Device device) {
  std::vector<double> m(out * in, 0.0);
  if (mode == TC_INTERP_NEAREST) {
    // float arithmetic, as PyTorch's CPU kernel computes the scale.
    const float scale = scale_factor > 0 ? float(1.0 / scale_factor) : float(in) / float(out);
    for (int64_t o = 0; o < out; ++o) {
      const int64_t i = std::min<int64_t>(int64_t(std::floor(float(o) * scale)), in - 1);
      m[o * in + i] = 1.0;
    }
  } else {
    double scale;
    if (align_corners)
      scale = out > 1 ? double(in - 1) / double(out - 1) : 0.0;
    else
      scale = scale_factor > 0 ? 1.0 / scale_factor : double(in) / double(out);
    for (int64_t o = 0; o < out; ++o) {
      double src = align_corners ? scale * o : scale * (o + 0.5) - 0.5;
      if (src < 0) src = 0;
      const int64_t i0 = std::min<int64_t>(int64_t(src), in - 1);
      const int64_t i1 = i0 < in - 1 ? i0 + 1 : i0;
      const double l1 = std::min(src - double(i0), 1.0);
      m[o * in + i0] += 1.0 - l1;
      m[o * in + i1] += l1;
    }
  }
  return value_tensor(m, {out, in}, dtype, device);
}

}  // namespace

// ---------------------------------------------------------------- norms --

Tensor batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps) {
  const char* op = "batch_norm";
  check_float(x, op, "input");
  TC_CHECK(x->ndim() >= 2, TC_ERR_SHAPE, op, ": input must be [N, C, *] but has shape ", x->shape);
  const int64_t c = x->shape[1];
  check_channel_vec(x, weight, c, op, "weight");
  check_channel_vec(x, bias, c, op, "bias");
  check_channel_vec(x, running_mean, c, op, "running_mean");
  check_channel_vec(x, running_var, c, op, "running_var");
  TC_CHECK(std::isfinite(momentum), TC_ERR_INVALID_ARGUMENT, op, ": momentum must be finite but is ",
           momentum);
  TC_CHECK(eps >= 0.0, TC_ERR_INVALID_ARGUMENT, op, ": eps must be >= 0 but is ", eps);
  TC_CHECK(bool(running_mean) == bool(running_var), TC_ERR_INVALID_ARGUMENT, op,
           ": running_mean and running_var must both be given or both be NULL");
  for (const Tensor& r : {running_mean, running_var})
    if (r) check_writable(r, op);
  const int64_t per_channel = c ? x->numel() / c : 0;
  if (!training) {
    TC_CHECK(running_mean, TC_ERR_INVALID_ARGUMENT, op,
             ": running_mean and running_var are needed in evaluation mode (training = 0)");
    return detail::batch_norm_eval(x, weight, bias, running_mean, running_var, eps);
  }
  TC_CHECK(per_channel > 1, TC_ERR_INVALID_ARGUMENT, op,
           ": expected more than 1 value per channel when training, got input of shape ", x->shape);
  return detail::batch_norm_train(x, weight, bias, running_mean, running_var, momentum, eps);
}

Tensor group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps) {
  const char* op = "group_norm";
  check_float(x, op, "input");
  TC_CHECK(x->ndim() >= 2, TC_ERR_SHAPE, op, ": input must be [N, C, *] but has shape ", x->shape);
  const int64_t c = x->shape[1];
  TC_CHECK(num_groups >= 1 && c % num_groups == 0, TC_ERR_INVALID_ARGUMENT, op,
           ": expected the number of channels (", c, ") to be divisible by num_groups, but num_groups is ",
           num_groups);
  check_channel_vec(x, weight, c, op, "weight");
  check_channel_vec(x, bias, c, op, "bias");
  TC_CHECK(eps >= 0.0, TC_ERR_INVALID_ARGUMENT, op, ": eps must be >= 0 but is ", eps);
  return detail::group_norm_fused(x, num_groups, weight, bias, eps);
}

Tensor instance_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                     const Tensor& running_var, bool use_input_stats, double momentum, double eps) {
  const char* op = "instance_norm";
  check_float(x, op, "input");
  TC_CHECK(x->ndim() >= 3, TC_ERR_SHAPE, op,
           ": input must be [N, C, *] with at least one spatial dim but has shape ", x->shape);
  const int64_t c = x->shape[1];
  check_channel_vec(x, weight, c, op, "weight");
  check_channel_vec(x, bias, c, op, "bias");
  check_channel_vec(x, running_mean, c, op, "running_mean");
  check_channel_vec(x, running_var, c, op, "running_var");
  TC_CHECK(bool(running_mean) == bool(running_var), TC_ERR_INVALID_ARGUMENT, op,
           ": running_mean and running_var must both be given or both be NULL");
  TC_CHECK(std::isfinite(momentum), TC_ERR_INVALID_ARGUMENT, op, ": momentum must be finite but is ",
           momentum);
  TC_CHECK(eps >= 0.0, TC_ERR_INVALID_ARGUMENT, op, ": eps must be >= 0 but is ", eps);
  for (const Tensor& r : {running_mean, running_var})
    if (r) check_writable(r, op);
  const int64_t n = x->shape[0], spatial = n * c != 0 ? x->numel() / (n * c) : 0;
  if (!use_input_stats) {
    TC_CHECK(running_mean, TC_ERR_INVALID_ARGUMENT, op,
             ": running_mean and running_var are needed when use_input_stats = 0");
    return detail::batch_norm_eval(x, weight, bias, running_mean, running_var, eps);
  }
  TC_CHECK(spatial > 1, TC_ERR_INVALID_ARGUMENT, op,
           ": expected more than 1 spatial element when training, got input of shape ", x->shape);
  // PyTorch's: batch norm of x seen as [1, N*C, *], the per-channel tensors
  // repeated N times; the running statistics keep the mean over N of theirs.
  Dims s = x->shape;
  s[0] = 1, s[1] = n * c;
  auto repeated = [&](const Tensor& t) {
    return t ? reshape(expand(unsqueeze(t, 0), {n, c}), {n * c}) : Tensor();
  };
  Tensor rm, rv;
  if (running_mean) {
    NoGradGuard no_grad;
    rm = mul_scalar(repeated(running_mean), 1.0);  // copies, updated in place
    rv = mul_scalar(repeated(running_var), 1.0);
  }
  Tensor y = detail::batch_norm_train(reshape(x, s), repeated(weight), repeated(bias), rm, rv, momentum, eps);
  if (running_mean) {
    NoGradGuard no_grad;
    copy_(running_mean, mean(reshape(rm, {n, c}), {0}, false));
    copy_(running_var, mean(reshape(rv, {n, c}), {0}, false));
  }
  return reshape(y, x->shape);
}

// ---------------------------------------------------------- convolutions --

Tensor conv2d_padded(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[2],
                     const int64_t padding[4], const int64_t dilation[2], int64_t groups) {
  const char* op = "conv2d_padded";
  for (int i = 0; i < 4; ++i) check_range(padding[i], 0, op, "padding");
  check_float(x, op, "x");
  TC_CHECK(x->ndim() == 4, TC_ERR_SHAPE, op, ": x must be [N, C, H, W] but has shape ", x->shape);
  // The symmetric part goes to conv2d; the rest is explicit zeros.
  const int64_t ph = std::min(padding[0], padding[1]), pw = std::min(padding[2], padding[3]);
  Tensor xp = x;
  if (padding[1] != padding[0]) xp = pad_dim(xp, 2, padding[0] - ph, padding[1] - ph, 0.0);
  if (padding[3] != padding[2]) xp = pad_dim(xp, 3, padding[2] - pw, padding[3] - pw, 0.0);
  const int64_t sym[2] = {ph, pw};
  return conv2d(xp, w, bias, stride, sym, dilation, groups);
}

Tensor conv_transpose2d(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[2],
                        const int64_t padding[2], const int64_t output_padding[2], const int64_t dilation[2],
                        int64_t groups) {
  return detail::conv_transpose_nd(x, w, bias, 2, stride, padding, output_padding, dilation, groups,
                                   "conv_transpose2d");
}

// -------------------------------------------------------------- pooling --

std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& x, const int64_t kernel[2],
                                                  const int64_t* stride, const int64_t padding[2],
                                                  const int64_t dilation[2], bool ceil_mode) {
  const PoolArgs a = pool_args(x, kernel, stride, padding, dilation, ceil_mode, "max_pool2d_with_indices");
  return detail::max_pool2d_geom(x, pool_geom(x, a));
}

Tensor avg_pool2d_ex(const Tensor& x, const int64_t kernel[2], const int64_t* stride,
                     const int64_t padding[2], bool ceil_mode, bool count_include_pad,
                     int64_t divisor_override) {
  const char* op = "avg_pool2d_ex";
  const PoolArgs a = pool_args(x, kernel, stride, padding, nullptr, ceil_mode, op);
  TC_CHECK(divisor_override >= 0 && divisor_override <= kMaxGeometry, TC_ERR_INVALID_ARGUMENT, op,
           ": divisor_override must be positive (or 0: none) but is ", divisor_override);
  PoolGeom g = pool_geom(x, a);
  g.count_include_pad = count_include_pad;
  g.divisor = divisor_override;
  return detail::avg_pool2d_geom(x, g);
}

// ----------------------------------------------------------- resampling --

Tensor interpolate(const Tensor& x, const int64_t* size, const double* scale_factors, int32_t mode,
                   bool align_corners) {
  const char* op = "interpolate";
  check_float(x, op, "x");
  TC_CHECK(mode == TC_INTERP_NEAREST || mode == TC_INTERP_LINEAR, TC_ERR_INVALID_ARGUMENT, op,
           ": mode must be TC_INTERP_NEAREST (0) or TC_INTERP_LINEAR (1) but is ", mode);
  TC_CHECK(x->ndim() == 3 || x->ndim() == 4, TC_ERR_SHAPE, op,
           ": x must be [N, C, W] or [N, C, H, W] but has shape ", x->shape);
  TC_CHECK(!(align_corners && mode == TC_INTERP_NEAREST), TC_ERR_INVALID_ARGUMENT, op,
           ": align_corners only applies to linear modes");
  const int64_t sd = x->ndim() - 2;
  for (int64_t i = 0; i < sd; ++i) {
    check_range(size[i], 1, op, "size");
    TC_CHECK(x->shape[2 + i] > 0, TC_ERR_SHAPE, op, ": x of shape ", x->shape, " has an empty spatial dim");
    if (scale_factors)
      TC_CHECK(std::isfinite(scale_factors[i]) && scale_factors[i] >= 0, TC_ERR_INVALID_ARGUMENT, op,
               ": scale factors must be finite and >= 0 (0: none) but one is ", scale_factors[i]);
  }
  auto matrix = [&](int64_t i) {
    return interp_matrix(x->shape[2 + i], size[i], scale_factors ? scale_factors[i] : 0.0, mode,
                         align_corners, x->dtype, x->device);
  };
  // Separable and linear in x: y = A_h x A_w^T.
  Tensor y = matmul(x, transpose(matrix(sd - 1), 0, 1));
  if (sd == 2) y = matmul(matrix(0), y);
  return y;
}

Tensor pixel_shuffle(const Tensor& x, int64_t r) {
  const char* op = "pixel_shuffle";
  check_range(r, 1, op, "upscale_factor");
  TC_CHECK(x->ndim() >= 3, TC_ERR_SHAPE, op, ": x must be [*, C * r^2, H, W] but has shape ", x->shape);
  const int64_t nd = x->ndim(), c = x->shape[nd - 3], h = x->shape[nd - 2], w = x->shape[nd - 1];
  TC_CHECK(c % (r * r) == 0, TC_ERR_SHAPE, op, ": the channels (", c,
           ") must be divisible by the square of upscale_factor ", r, "; x has shape ", x->shape);
  Dims lead(x->shape.data(), nd - 3);
  const int64_t b = lead.size();
  Dims s = lead;
  for (int64_t v : {c / (r * r), r, r, h, w}) s.push_back(v);
  Dims perm;
  for (int64_t i = 0; i < b; ++i) perm.push_back(i);
  for (int64_t i : {0, 3, 1, 4, 2}) perm.push_back(b + i);
  Dims o = lead;
  for (int64_t v : {c / (r * r), h * r, w * r}) o.push_back(v);
  return reshape(permute(reshape(x, s), perm), o);
}

Tensor pixel_unshuffle(const Tensor& x, int64_t r) {
  const char* op = "pixel_unshuffle";
  check_range(r, 1, op, "downscale_factor");
  TC_CHECK(x->ndim() >= 3, TC_ERR_SHAPE, op, ": x must be [*, C, H * r, W * r] but has shape ", x->shape);
  const int64_t nd = x->ndim(), c = x->shape[nd - 3], h = x->shape[nd - 2], w = x->shape[nd - 1];
  TC_CHECK(h % r == 0 && w % r == 0, TC_ERR_SHAPE, op, ": height and width of x of shape ", x->shape,
           " must be divisible by downscale_factor ", r);
  Dims lead(x->shape.data(), nd - 3);
  const int64_t b = lead.size();
  Dims s = lead;
  for (int64_t v : {c, h / r, r, w / r, r}) s.push_back(v);
  Dims perm;
  for (int64_t i = 0; i < b; ++i) perm.push_back(i);
  for (int64_t i : {0, 2, 4, 1, 3}) perm.push_back(b + i);
  Dims o = lead;
  for (int64_t v : {c * r * r, h / r, w / r}) o.push_back(v);
  return reshape(permute(reshape(x, s), perm), o);
}

// ---------------------------------------------------- embedding, dropout --

Tensor embedding_padding_idx(const Tensor& weight, const Tensor& indices, int64_t padding_idx) {
  const char* op = "embedding_padding_idx";
  TC_CHECK(weight->ndim() == 2, TC_ERR_SHAPE, op, ": weight must be [num, dim] but has shape ",
           weight->shape);
  const int64_t num = weight->shape[0];
  TC_CHECK(padding_idx >= -num && padding_idx < num, TC_ERR_INDEX, op, ": padding_idx must be within [", -num,
           ", ", num, ") but is ", padding_idx);
  const int64_t pad = padding_idx < 0 ? padding_idx + num : padding_idx;
  Tensor y = embedding(weight, indices);
  // The padding row's value is read, but no gradient flows back to it.
  Tensor is_pad =
      unsqueeze(binary(row::eq, indices, scalar_tensor(double(pad), DType::i64, indices->device)), -1);
  return where(is_pad, detach(y), y);
}

Tensor dropout2d(const Tensor& x, double p, bool training) {
  const char* op = "dropout2d";
  check_float(x, op, "x");
  TC_CHECK(p >= 0.0 && p <= 1.0, TC_ERR_INVALID_ARGUMENT, op,
           ": dropout probability has to be between 0 and 1, but got ", p);
  TC_CHECK(x->ndim() >= 2, TC_ERR_SHAPE, op, ": x must be [N, C, *] but has shape ", x->shape);
  if (!training || p == 0.0) return mul_scalar(x, 1.0);
  // One draw per (sample, channel), broadcast over the spatial dims.
  Dims ms = Dims::filled(x->ndim(), 1);
  ms[0] = x->shape[0], ms[1] = x->shape[1];
  Tensor mask = dropout(ones(ms, x->dtype, x->device), p, true);
  return mul(x, mask);
}

}  // namespace tc::ops
