// conv3d and the transposed convolutions (2-D and 3-D): argument checks and
// geometry in PyTorch 1.13's terms, then the backend's convolution kernels
// (the CPU's: oneDNN for float32, im2col + GEMM otherwise; CUDA's: cuDNN). A
// transposed convolution is the backward-data pass of the convolution whose
// input is its result, so no zero-stuffed copy of the input is made.
#include "ops/conv_nd.h"

#include <vector>

#include "autograd/node.h"
#include "backend/backend.h"
#include "core/dtype.h"
#include "ops/internal.h"
#include "ops/nn_util.h"
#include "ops/ops.h"

namespace tc::ops {
namespace {

// The upper bound keeps every geometry product far from int64 overflow.
constexpr int64_t kMaxGeometry = int64_t(1) << 31;

void check_float(const Tensor& t, const char* op, const char* arg) {
  TC_CHECK(device_type(t->device) == TC_DEVICE_CPU || device_type(t->device) == TC_DEVICE_CUDA,
           TC_ERR_NOT_IMPLEMENTED, op, ": ", arg, " is on ", device_name(t->device), ", where ", op,
           " is not implemented");
  TC_CHECK(t->dtype == DType::f32 || t->dtype == DType::f64, TC_ERR_DTYPE, op, ": ", arg,
           " must be float32 or float64 but is ", dtype_name(t->dtype));
}

void check_values(const int64_t* v, int nd, int64_t min, const char* op, const char* what) {
  for (int i = 0; i < nd; ++i)
    TC_CHECK(v[i] >= min && v[i] <= kMaxGeometry, TC_ERR_INVALID_ARGUMENT, op, ": ", what, " must be in [",
             min, ", 2^31] but is ", Dims(v, nd));
}

// Sets g's spatial axes (depth first when nd == 3; a 2-D geometry keeps the
// depth trivial) from per-axis values.
void set_axes(ConvGeom& g, int nd, const int64_t* in, const int64_t* k, const int64_t* s, const int64_t* p,
              const int64_t* d, const int64_t* out) {
  const int o = nd - 2;  // index of the height axis
  if (nd == 3) g.id = in[0], g.kd = k[0], g.sd = s[0], g.pd = p[0], g.dd = d[0], g.od = out[0];
  g.h = in[o], g.kh = k[o], g.sh = s[o], g.ph = p[o], g.dh = d[o], g.ho = out[o];
  g.w = in[o + 1], g.kw = k[o + 1], g.sw = s[o + 1], g.pw = p[o + 1], g.dw = d[o + 1], g.wo = out[o + 1];
}

void check_bias(const Tensor& x, const Tensor& bias, int64_t channels, const char* op) {
  if (!bias) return;
  check_float(bias, op, "bias");
  detail::check_same_dtype(x, bias, op, "x", "bias");
  detail::check_same_device(op, x, bias, true);
  TC_CHECK(bias->ndim() == 1 && bias->shape[0] == channels, TC_ERR_SHAPE, op, ": bias must have shape [",
           channels, "] but has shape ", bias->shape);
}

// The transposed convolution's gradients: of its input, the convolution of
// the incoming gradient; of the weight, that convolution's weight gradient
// with the roles of input and output swapped.
struct ConvTransposeBackward : autograd::Node {
  autograd::SavedTensor x_saved, w_saved;
  ConvGeom geom;  // of the convolution from the result's space to x's
  const char* name() const override { return "ConvolutionBackward"; }
  bool has_saved() const override { return true; }
  void release_saved() override {
    x_saved.release();
    w_saved.release();
  }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    Tensor x = tc::contiguous(x_saved.unpack(name())), w = tc::contiguous(w_saved.unpack(name()));
    Tensor gy = tc::contiguous(grads[0]);
    std::vector<Tensor> out(next.size());
    const bool work = x->numel() > 0 && gy->numel() > 0 && w->numel() > 0;
    if (detail::wants_grad(*this, 0)) {
      out[0] = zeros(x->shape, x->dtype, x->device);
      if (work) backend_for(x).conv2d(out[0], gy, w, Tensor(), geom);
    }
    if (detail::wants_grad(*this, 1)) {
      out[1] = zeros(w->shape, w->dtype, w->device);
      if (work) backend_for(x).conv2d_backward(Tensor(), out[1], Tensor(), gy, w, x, geom);
    }
    return out;
  }
};

}  // namespace

Tensor conv3d(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[3],
              const int64_t padding[3], const int64_t dilation[3], int64_t groups) {
  const char* op = "conv3d";
  check_float(x, op, "x");
  check_float(w, op, "weight");
  detail::check_same_dtype(x, w, op, "x", "weight");
  detail::check_same_device(op, x, w, true);
  TC_CHECK(x->ndim() == 5, TC_ERR_SHAPE, op, ": x must be [N, C, D, H, W] but has shape ", x->shape);
  TC_CHECK(w->ndim() == 5, TC_ERR_SHAPE, op, ": weight must be [O, C/groups, kD, kH, kW] but has shape ",
           w->shape);
  check_values(stride, 3, 1, op, "stride");
  check_values(padding, 3, 0, op, "padding");
  check_values(dilation, 3, 1, op, "dilation");
  TC_CHECK(groups >= 1 && groups <= kMaxGeometry, TC_ERR_INVALID_ARGUMENT, op,
           ": groups must be >= 1 but is ", groups);
  ConvGeom g{};
  g.n = x->shape[0], g.c = x->shape[1], g.o = w->shape[0], g.groups = groups;
  TC_CHECK(g.c % groups == 0 && g.o % groups == 0, TC_ERR_SHAPE, op, ": groups ", groups,
           " must divide both the input channels (", g.c, ") and the output channels (", g.o, ")");
  g.cg = g.c / groups, g.og = g.o / groups;
  TC_CHECK(w->shape[1] == g.cg, TC_ERR_SHAPE, op, ": weight of shape ", w->shape, " expects ",
           w->shape[1] * groups, " input channels but x of shape ", x->shape, " has ", g.c);
  check_bias(x, bias, g.o, op);
  int64_t in[3], k[3], out[3];
  for (int i = 0; i < 3; ++i) {
    in[i] = x->shape[2 + i], k[i] = w->shape[2 + i];
    const int64_t span = in[i] + 2 * padding[i] - dilation[i] * (k[i] - 1) - 1;
    TC_CHECK(span >= 0, TC_ERR_SHAPE, op, ": the (dilated) kernel of weight ", w->shape,
             " is larger than the padded input of shape ", x->shape);
    out[i] = span / stride[i] + 1;
  }
  set_axes(g, 3, in, k, stride, padding, dilation, out);
  return detail::conv_geom_forward(x, w, bias, g);
}

Tensor conv_transpose3d(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[3],
                        const int64_t padding[3], const int64_t output_padding[3], const int64_t dilation[3],
                        int64_t groups) {
  return detail::conv_transpose_nd(x, w, bias, 3, stride, padding, output_padding, dilation, groups,
                                   "conv_transpose3d");
}

namespace detail {

Tensor conv_transpose_nd(const Tensor& x, const Tensor& w, const Tensor& bias, int nd, const int64_t* stride,
                         const int64_t* padding, const int64_t* output_padding, const int64_t* dilation,
                         int64_t groups, const char* op) {
  check_float(x, op, "x");
  check_float(w, op, "weight");
  check_same_dtype(x, w, op, "x", "weight");
  check_same_device(op, x, w, true);
  const char* layout = nd == 3 ? "[N, C, D, H, W]" : "[N, C, H, W]";
  const char* wlayout = nd == 3 ? "[C, O/groups, kD, kH, kW]" : "[C, O/groups, kH, kW]";
  TC_CHECK(x->ndim() == nd + 2, TC_ERR_SHAPE, op, ": x must be ", layout, " but has shape ", x->shape);
  TC_CHECK(w->ndim() == nd + 2, TC_ERR_SHAPE, op, ": weight must be ", wlayout, " but has shape ", w->shape);
  TC_CHECK(groups >= 1 && groups <= kMaxGeometry, TC_ERR_INVALID_ARGUMENT, op,
           ": groups must be >= 1 but is ", groups);
  const int64_t cin = x->shape[1];
  TC_CHECK(w->shape[0] == cin, TC_ERR_SHAPE, op, ": weight of shape ", w->shape, " expects ", w->shape[0],
           " input channels but x of shape ", x->shape, " has ", cin);
  TC_CHECK(cin % groups == 0, TC_ERR_SHAPE, op, ": groups ", groups, " must divide the input channels (", cin,
           ")");
  check_values(stride, nd, 1, op, "stride");
  check_values(padding, nd, 0, op, "padding");
  check_values(dilation, nd, 1, op, "dilation");
  check_values(output_padding, nd, 0, op, "output_padding");
  const int64_t cout = w->shape[1] * groups;
  int64_t xs[3], k[3], ys[3];
  for (int i = 0; i < nd; ++i) {
    TC_CHECK(output_padding[i] < stride[i] || output_padding[i] < dilation[i], TC_ERR_INVALID_ARGUMENT, op,
             ": output_padding must be smaller than either stride or dilation, but got output_padding ",
             Dims(output_padding, nd), ", stride ", Dims(stride, nd), ", dilation ", Dims(dilation, nd));
    xs[i] = x->shape[2 + i], k[i] = w->shape[2 + i];
    ys[i] = (xs[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k[i] - 1) + output_padding[i] + 1;
    TC_CHECK(ys[i] >= 1 && xs[i] >= 1, TC_ERR_SHAPE, op, ": x of shape ", x->shape, " and weight of shape ",
             w->shape, " give a non-positive output size");
  }
  check_bias(x, bias, cout, op);
  // The convolution from the result's space [N, cout, ys] to x's [N, cin, xs]
  // has weight [cin, cout/groups, k]: w itself.
  ConvGeom g{};
  g.n = x->shape[0], g.c = cout, g.o = cin, g.groups = groups, g.cg = w->shape[1], g.og = cin / groups;
  set_axes(g, nd, ys, k, stride, padding, dilation, xs);
  Dims shape = {g.n, cout};
  for (int i = 0; i < nd; ++i) shape.push_back(ys[i]);
  Tensor xc = tc::contiguous(x), wc = tc::contiguous(w);
  Tensor y = zeros(shape, x->dtype, x->device);
  if (y->numel() > 0 && x->numel() > 0 && w->numel() > 0)
    backend_for(x).conv2d_backward(y, Tensor(), Tensor(), y, wc, xc, g);
  if (autograd::needs_grad({&x, &w})) {
    auto node = std::make_shared<ConvTransposeBackward>();
    node->x_saved = autograd::SavedTensor(x);
    node->w_saved = autograd::SavedTensor(w);
    node->geom = g;
    autograd::record(node, std::vector<Tensor>{x, w}, {y});
  }
  if (!bias) return y;
  Dims bshape = Dims::filled(nd + 2, 1);
  bshape[1] = cout;
  return add(y, reshape(bias, bshape));
}

}  // namespace detail
}  // namespace tc::ops
