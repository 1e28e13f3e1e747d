// conv2d (and conv3d's kernels and node: ops/conv_nd.cpp), max_pool2d and
// avg_pool2d, forward and backward, NCHW: argument
// checks, geometry (math/conv_geom.h) and autograd; the kernels are the
// device backend's (src/backend/backend.h; the CPU's lower conv2d to im2col + GEMM).
#include <cmath>
#include <limits>
#include <vector>

#include "autograd/engine.h"
#include "autograd/node.h"
#include "backend/backend.h"
#include "core/dtype.h"
#include "core/init.h"
#include "ops/conv_nd.h"
#include "ops/internal.h"
#include "ops/nn_util.h"
#include "ops/ops.h"
#include "ops/pooling.h"

namespace tc::ops {
namespace {

// float32/float64 on the CPU or on CUDA (whose backend runs conv2d and
// avg_pool2d through cuDNN and max_pool2d in its own kernels; a CUDA module
// without cuDNN says TC_ERR_NOT_IMPLEMENTED for the first two).
void check_float(const Tensor& t, const char* op, const char* arg) {
  TC_CHECK(device_type(t->device) == TC_DEVICE_CPU || device_type(t->device) == TC_DEVICE_CUDA,
           TC_ERR_NOT_IMPLEMENTED, op, ": ", arg, " is on ", device_name(t->device), ", where ", op,
           " is not implemented");
  TC_CHECK(t->dtype == DType::f32 || t->dtype == DType::f64, TC_ERR_DTYPE, op, ": ", arg,
           " must be float32 or float64 but is ", dtype_name(t->dtype));
}

// x padded with zeros by p on both sides of dim d, recorded (cat's backward
// is differentiable again, which a padding op's would have to be too).
Tensor zero_pad(const Tensor& x, int64_t d, int64_t p) {
  if (p == 0) return x;
  Dims side = x->shape;
  side[d] = p;
  const Tensor z = zeros(side, x->dtype, x->device);
  return cat({z, x, z}, d);
}

// conv2d in recorded ops, one GEMM per kernel offset over strided slices of
// the padded input: the forward a create_graph pass differentiates (slow,
// but every piece has a double backward of its own).
Tensor conv2d_composed(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeom& g) {
  if (g.groups > 1) {
    std::vector<Tensor> ys;
    for (int64_t k = 0; k < g.groups; ++k) {
      ConvGeom one = g;
      one.groups = 1;
      one.c = g.cg;
      one.o = g.og;
      ys.push_back(conv2d_composed(narrow(x, 1, k * g.cg, g.cg), narrow(w, 0, k * g.og, g.og),
                                   b ? narrow(b, 0, k * g.og, g.og) : Tensor(), one));
    }
    return cat(ys, 1);
  }
  const Tensor xp = zero_pad(zero_pad(x, 2, g.ph), 3, g.pw);
  Tensor acc;
  for (int64_t i = 0; i < g.kh; ++i) {
    for (int64_t j = 0; j < g.kw; ++j) {
      const int64_t r0 = i * g.dh, c0 = j * g.dw;
      const Tensor xs =
          slice(slice(xp, 2, r0, r0 + (g.ho - 1) * g.sh + 1, g.sh), 3, c0, c0 + (g.wo - 1) * g.sw + 1,
                g.sw);                                                                  // [N, C, Ho, Wo]
      const Tensor wk = select(select(w, 3, j), 2, i);                                  // [O, C]
      const Tensor term = ops::matmul(permute(xs, {0, 2, 3, 1}), transpose(wk, 0, 1));  // [N, Ho, Wo, O]
      acc = acc ? add(acc, term) : term;
    }
  }
  Tensor y = permute(acc, {0, 3, 1, 2});
  if (b) y = add(y, reshape(b, {1, g.o, 1, 1}));
  return y;
}

struct Conv2dBackward : autograd::Node {
  autograd::SavedTensor x_saved, w_saved;
  ConvGeom geom;
  const char* name() const override { return "ConvolutionBackward"; }
  bool has_saved() const override { return true; }
  void release_saved() override {
    x_saved.release();
    w_saved.release();
  }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    if (detail::creating_graph() && geom.n > 0) {
      // Recorded: the composed forward, differentiated (a stand-in leaf for the bias, which is only added).
      const Tensor x = x_saved.unpack(name()), w = w_saved.unpack(name());
      const bool has_b = next.size() > 2;
      Tensor b = has_b ? zeros({geom.o}, x->dtype, x->device) : Tensor();
      if (has_b && detail::wants_grad(*this, 2)) b->requires_grad = true;
      const ConvGeom g = geom;
      std::vector<Tensor> r = autograd::vjp_recorded(
          {x, w, b},
          {detail::wants_grad(*this, 0), detail::wants_grad(*this, 1), has_b && detail::wants_grad(*this, 2)},
          [g](const std::vector<Tensor>& in) { return conv2d_composed(in[0], in[1], in[2], g); }, grads[0]);
      if (!r.empty()) {
        r.resize(next.size());
        return r;
      }
    }
    Tensor x = tc::contiguous(x_saved.unpack(name())), w = tc::contiguous(w_saved.unpack(name()));
    Tensor gy = tc::contiguous(grads[0]);
    std::vector<Tensor> out(next.size());
    if (detail::wants_grad(*this, 0)) out[0] = zeros(x->shape, x->dtype, x->device);
    if (detail::wants_grad(*this, 1)) out[1] = zeros(w->shape, w->dtype, w->device);
    if (next.size() > 2 && detail::wants_grad(*this, 2)) out[2] = zeros({geom.o}, x->dtype, x->device);
    if (geom.n == 0) return out;
    backend_for(x).conv2d_backward(out[0], out[1], out.size() > 2 ? out[2] : Tensor(), x, w, gy, geom);
    autograd::not_differentiable(out);  // only under create_graph (the recorded form was not possible)
    return out;
  }
};

// The upper bound keeps every geometry product (padding * 2, dilation *
// (kernel - 1), ...) far from int64 overflow.
constexpr int64_t kMaxGeometry = int64_t(1) << 31;

void check_pair(const int64_t v[2], int64_t min, const char* op, const char* what) {
  TC_CHECK(v[0] >= min && v[1] >= min && v[0] <= kMaxGeometry && v[1] <= kMaxGeometry,
           TC_ERR_INVALID_ARGUMENT, op, ": ", what, " must be in [", min, ", 2^31] but is [", v[0], ", ",
           v[1], "]");
}

// ---------------------------------------------------------------- pooling --

PoolGeom pool_geom(const Tensor& x, const int64_t kernel[2], const int64_t stride[2],
                   const int64_t padding[2], const char* op) {
  check_float(x, op, "x");
  TC_CHECK(x->ndim() == 4, TC_ERR_SHAPE, op, ": x must be [N, C, H, W] but has shape ", x->shape);
  check_pair(kernel, 1, op, "kernel");
  check_pair(stride, 1, op, "stride");
  check_pair(padding, 0, op, "padding");
  TC_CHECK(padding[0] * 2 <= kernel[0] && padding[1] * 2 <= kernel[1], TC_ERR_INVALID_ARGUMENT, op,
           ": padding [", padding[0], ", ", padding[1], "] must be at most half the kernel [", kernel[0],
           ", ", kernel[1], "]");
  PoolGeom g{x->shape[0] * x->shape[1],
             x->shape[2],
             x->shape[3],
             kernel[0],
             kernel[1],
             stride[0],
             stride[1],
             padding[0],
             padding[1],
             0,
             0};
  g.ho = (g.h + 2 * g.ph - g.kh) / g.sh + 1;
  g.wo = (g.w + 2 * g.pw - g.kw) / g.sw + 1;
  TC_CHECK(g.h + 2 * g.ph >= g.kh && g.w + 2 * g.pw >= g.kw, TC_ERR_SHAPE, op, ": kernel [", g.kh, ", ", g.kw,
           "] is larger than the padded input of shape ", x->shape);
  return g;
}

Dims pool_out_shape(const Tensor& x, const PoolGeom& g) { return {x->shape[0], x->shape[1], g.ho, g.wo}; }

struct MaxPool2dBackward : autograd::Node {
  // int64 [N, C, Ho, Wo]: flat index within the input plane; saved (version
  // checked), since max_pool2d_with_indices hands it to the caller too.
  autograd::SavedTensor argmax;
  Dims x_shape;
  DType dtype;
  Device device;
  PoolGeom geom;
  const char* name() const override { return "MaxPool2DBackward"; }
  bool has_saved() const override { return true; }
  void release_saved() override { argmax.release(); }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    Tensor am = argmax.unpack(name());
    Tensor gy = tc::contiguous(grads[0]);
    Tensor gx = zeros(x_shape, dtype, device);
    backend_for(gx).max_pool2d_backward(gx, gy, am, geom);
    // Linear in g: under create_graph its own backward gathers at the maxima.
    const Dims xs = x_shape, ys = gy->shape;
    return {detail::linear_of_grad("MaxPool2DBackwardBackward", grads[0], gx, [am, xs, ys](const Tensor& gg) {
      const Tensor flat = reshape(gg, {xs[0], xs[1], xs[2] * xs[3]});
      return reshape(gather(flat, 2, reshape(am, {ys[0], ys[1], ys[2] * ys[3]})), ys);
    })};
  }
};

struct AvgPool2dBackward : autograd::Node {
  Dims x_shape;
  DType dtype;
  Device device;
  PoolGeom geom;
  const char* name() const override { return "AvgPool2DBackward"; }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override;
};

std::vector<Tensor> AvgPool2dBackward::apply(const std::vector<Tensor>& grads) {
  Tensor gy = tc::contiguous(grads[0]);
  Tensor gx = zeros(x_shape, dtype, device);
  if (gy->numel() > 0) backend_for(gx).avg_pool2d_backward(gx, gy, geom);
  // Linear in g: under create_graph its own backward is the average pool itself.
  const PoolGeom g = geom;
  return {detail::linear_of_grad("AvgPool2DBackwardBackward", grads[0], gx,
                                 [g](const Tensor& gg) { return detail::avg_pool2d_geom(gg, g); })};
}

}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[2],
              const int64_t padding[2], const int64_t dilation[2], int64_t groups) {
  const char* op = "conv2d";
  check_float(x, op, "x");
  check_float(w, op, "weight");
  detail::check_same_dtype(x, w, op, "x", "weight");
  detail::check_same_device(op, x, w, true);
  TC_CHECK(x->ndim() == 4, TC_ERR_SHAPE, op, ": x must be [N, C, H, W] but has shape ", x->shape);
  TC_CHECK(w->ndim() == 4, TC_ERR_SHAPE, op, ": weight must be [O, C/groups, kH, kW] but has shape ",
           w->shape);
  check_pair(stride, 1, op, "stride");
  check_pair(padding, 0, op, "padding");
  check_pair(dilation, 1, op, "dilation");
  TC_CHECK(groups >= 1, TC_ERR_INVALID_ARGUMENT, op, ": groups must be >= 1 but is ", groups);
  ConvGeom g{};
  g.n = x->shape[0], g.c = x->shape[1], g.h = x->shape[2], g.w = x->shape[3];
  g.o = w->shape[0], g.kh = w->shape[2], g.kw = w->shape[3];
  g.groups = groups;
  TC_CHECK(g.c % groups == 0 && g.o % groups == 0, TC_ERR_SHAPE, op, ": groups ", groups,
           " must divide both the input channels (", g.c, ") and the output channels (", g.o, ")");
  g.cg = g.c / groups, g.og = g.o / groups;
  TC_CHECK(w->shape[1] == g.cg, TC_ERR_SHAPE, op, ": weight of shape ", w->shape, " expects ",
           w->shape[1] * groups, " input channels but x of shape ", x->shape, " has ", g.c);
  if (bias) {
    check_float(bias, op, "bias");
    detail::check_same_dtype(x, bias, op, "x", "bias");
    detail::check_same_device(op, x, bias, true);
    TC_CHECK(bias->ndim() == 1 && bias->shape[0] == g.o, TC_ERR_SHAPE, op, ": bias must have shape [", g.o,
             "] but has shape ", bias->shape);
  }
  g.sh = stride[0], g.sw = stride[1], g.ph = padding[0], g.pw = padding[1], g.dh = dilation[0],
  g.dw = dilation[1];
  const int64_t eh = g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1, ew = g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1;
  TC_CHECK(eh >= 0 && ew >= 0, TC_ERR_SHAPE, op, ": the (dilated) kernel of weight ", w->shape,
           " is larger than the padded input of shape ", x->shape);
  g.ho = eh / g.sh + 1, g.wo = ew / g.sw + 1;
  return detail::conv_geom_forward(x, w, bias, g);
}

namespace detail {

Tensor conv_geom_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeom& g) {
  Tensor xc = tc::contiguous(x), wc = tc::contiguous(w), bc = bias ? tc::contiguous(bias) : Tensor();
  Dims shape = {g.n, g.o, g.ho, g.wo};
  if (x->ndim() == 5) shape.insert(2, g.od);
  Tensor y = empty(shape, x->dtype, x->device);
  if (y->numel() > 0) backend_for(x).conv2d(y, xc, wc, bc, g);
  std::vector<Tensor> inputs = defined({x, w, bias});
  if (autograd::needs_grad(inputs)) {
    auto node = std::make_shared<Conv2dBackward>();
    node->x_saved = autograd::SavedTensor(x);
    node->w_saved = autograd::SavedTensor(w);
    node->geom = g;
    autograd::record(node, inputs, {y});
  }
  return y;
}

std::pair<Tensor, Tensor> max_pool2d_geom(const Tensor& x, const PoolGeom& g) {
  Tensor xc = tc::contiguous(x);
  Tensor y = empty(pool_out_shape(x, g), x->dtype, x->device);
  Tensor argmax = empty(y->shape, DType::i64, x->device);
  if (y->numel() > 0) backend_for(x).max_pool2d(y, argmax, xc, g);
  if (autograd::needs_grad({&x})) {
    auto node = std::make_shared<MaxPool2dBackward>();
    node->argmax = autograd::SavedTensor(argmax);
    node->x_shape = x->shape;
    node->dtype = x->dtype;
    node->device = x->device;
    node->geom = g;
    autograd::record(node, {x}, {y});
  }
  return {y, argmax};
}

Tensor avg_pool2d_geom(const Tensor& x, const PoolGeom& g) {
  Tensor xc = tc::contiguous(x);
  Tensor y = empty(pool_out_shape(x, g), x->dtype, x->device);
  if (y->numel() > 0) backend_for(x).avg_pool2d(y, xc, g);
  if (autograd::needs_grad({&x})) {
    auto node = std::make_shared<AvgPool2dBackward>();
    node->x_shape = x->shape;
    node->dtype = x->dtype;
    node->device = x->device;
    node->geom = g;
    autograd::record(node, {x}, {y});
  }
  return y;
}

}  // namespace detail

Tensor max_pool2d(const Tensor& x, const int64_t kernel[2], const int64_t stride[2],
                  const int64_t padding[2]) {
  return detail::max_pool2d_geom(x, pool_geom(x, kernel, stride, padding, "max_pool2d")).first;
}

Tensor avg_pool2d(const Tensor& x, const int64_t kernel[2], const int64_t stride[2],
                  const int64_t padding[2]) {
  return detail::avg_pool2d_geom(x, pool_geom(x, kernel, stride, padding, "avg_pool2d"));
}

}  // namespace tc::ops
