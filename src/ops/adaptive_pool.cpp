// Adaptive average and max pooling, 1-D and 2-D, batched or not: argument
// checks, the geometry (math/adaptive_pool.h) and the autograd nodes; the
// kernels are the backend's (src/cpu/adaptive_pool.cpp, src/cuda/adaptive_pool.cu).
// A 1-D pool is the 2-D kernel with one row (h = ho = 1). Non-contiguous
// inputs are made contiguous first.
#include <memory>
#include <utility>

#include "autograd/node.h"
#include "backend/backend.h"
#include "core/dtype.h"
#include "core/error.h"
#include "ops/internal.h"
#include "ops/ops.h"

namespace tc::ops {
namespace {

// Keeps every window product in math/adaptive_pool.h far from int64 overflow.
constexpr int64_t kMaxSize = int64_t(1) << 31;

struct Adaptive {
  AdaptivePoolGeom geom;
  Dims out_shape;
};

// x: [N, C, *spatial] or [C, *spatial] with sd spatial dims (1 or 2),
// float32/float64, on the CPU or CUDA; output_size: sd entries in [0, 2^31]
// (0: an empty result, as PyTorch's).
Adaptive adaptive_geometry(const Tensor& x, int64_t sd, const int64_t* output_size, const char* op) {
  TC_CHECK(device_type(x->device) == TC_DEVICE_CPU || device_type(x->device) == TC_DEVICE_CUDA,
           TC_ERR_NOT_IMPLEMENTED, op, ": x is on ", device_name(x->device), ", where ", op,
           " is not implemented");
  TC_CHECK(x->dtype == DType::f32 || x->dtype == DType::f64, TC_ERR_DTYPE, op,
           ": x must be float32 or float64 but is ", dtype_name(x->dtype));
  TC_CHECK(x->ndim() == sd + 1 || x->ndim() == sd + 2, TC_ERR_SHAPE, op, ": x must be ",
           sd == 1 ? "[N, C, L] or [C, L]" : "[N, C, H, W] or [C, H, W]", " but has shape ", x->shape);
  for (int64_t i = 0; i < sd; ++i)
    TC_CHECK(output_size[i] >= 0 && output_size[i] <= kMaxSize, TC_ERR_INVALID_ARGUMENT, op,
             ": output_size must be in [0, 2^31] but is ", output_size[i]);
  const int64_t nd = x->ndim();
  for (int64_t i = nd - sd; i < nd; ++i)
    TC_CHECK(x->shape[i] > 0, TC_ERR_SHAPE, op, ": x of shape ", x->shape, " has an empty spatial dim");
  Adaptive a{};
  a.geom.planes = 1;
  for (int64_t i = 0; i < nd - sd; ++i) {
    a.geom.planes *= x->shape[i];
    a.out_shape.push_back(x->shape[i]);
  }
  a.geom.h = sd == 2 ? x->shape[nd - 2] : 1;
  a.geom.w = x->shape[nd - 1];
  a.geom.ho = sd == 2 ? output_size[0] : 1;
  a.geom.wo = output_size[sd - 1];
  for (int64_t i = 0; i < sd; ++i) a.out_shape.push_back(output_size[i]);
  return a;
}

// What both pools' backward nodes keep of the forward: the input's shape,
// dtype and device, the geometry, the node's name (1-D or 2-D).
struct AdaptivePoolNode : autograd::Node {
  Dims x_shape;
  DType dtype;
  Device device;
  AdaptivePoolGeom geom;
  const char* node_name;
  int64_t spatial_dims;  // 1 or 2
  AdaptivePoolNode(const Tensor& x, const AdaptivePoolGeom& g, const char* name, int64_t sd)
      : x_shape(x->shape), dtype(x->dtype), device(x->device), geom(g), node_name(name), spatial_dims(sd) {}
  const char* name() const override { return node_name; }
};

struct AdaptiveAvgPoolBackward : AdaptivePoolNode {
  using AdaptivePoolNode::AdaptivePoolNode;
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    Tensor gy = tc::contiguous(grads[0]);
    Tensor gx = empty(x_shape, dtype, device);
    if (gx->numel() > 0) backend_for(gx).adaptive_avg_pool2d_backward(gx, gy, geom);
    // Linear in the gradient: under create_graph its adjoint is the pool itself.
    const int64_t out[2] = {geom.ho, geom.wo};
    const int64_t sd = spatial_dims;
    return {
        detail::linear_of_grad("AdaptiveAvgPoolBackwardBackward", grads[0], gx, [sd, out](const Tensor& gg) {
          return sd == 2 ? adaptive_avg_pool2d(gg, out) : adaptive_avg_pool1d(gg, out[1]);
        })};
  }
};

struct AdaptiveMaxPoolBackward : AdaptivePoolNode {
  AdaptiveMaxPoolBackward(const Tensor& x, const AdaptivePoolGeom& g, const char* name, int64_t sd,
                          const Tensor& am)
      : AdaptivePoolNode(x, g, name, sd), argmax(am) {}
  // Saved (version checked): the caller gets the indices too.
  autograd::SavedTensor argmax;
  bool has_saved() const override { return true; }
  void release_saved() override { argmax.release(); }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    Tensor am = argmax.unpack(name());
    Tensor gy = tc::contiguous(grads[0]);
    Tensor gx = empty(x_shape, dtype, device);
    if (gx->numel() > 0) backend_for(gx).adaptive_max_pool2d_backward(gx, gy, am, geom);
    // Linear in the gradient: under create_graph its adjoint gathers each
    // plane's gradient at the saved argmax (an index into the plane).
    const int64_t planes = geom.planes, in_plane = geom.h * geom.w, out_plane = geom.ho * geom.wo;
    const Dims g_shape = grads[0]->shape;
    const Tensor idx = detail::raw_reshape(am, {planes, out_plane});
    return {detail::linear_of_grad("AdaptiveMaxPoolBackwardBackward", grads[0], gx, [=](const Tensor& gg) {
      return reshape(gather(reshape(gg, {planes, in_plane}), 1, idx), g_shape);
    })};
  }
};

Tensor avg_pool(const Tensor& x, int64_t sd, const int64_t* output_size, const char* op,
                const char* node_name) {
  const Adaptive a = adaptive_geometry(x, sd, output_size, op);
  Tensor xc = tc::contiguous(x);
  Tensor y = empty(a.out_shape, x->dtype, x->device);
  if (y->numel() > 0) backend_for(x).adaptive_avg_pool2d(y, xc, a.geom);
  if (autograd::needs_grad({&x})) {
    autograd::record(std::make_shared<AdaptiveAvgPoolBackward>(x, a.geom, node_name, sd), {x}, {y});
  }
  return y;
}

std::pair<Tensor, Tensor> max_pool(const Tensor& x, int64_t sd, const int64_t* output_size, const char* op,
                                   const char* node_name) {
  const Adaptive a = adaptive_geometry(x, sd, output_size, op);
  Tensor xc = tc::contiguous(x);
  Tensor y = empty(a.out_shape, x->dtype, x->device);
  Tensor argmax = empty(a.out_shape, DType::i64, x->device);
  if (y->numel() > 0) backend_for(x).adaptive_max_pool2d(y, argmax, xc, a.geom);
  if (autograd::needs_grad({&x})) {
    autograd::record(std::make_shared<AdaptiveMaxPoolBackward>(x, a.geom, node_name, sd, argmax), {x}, {y});
  }
  return {y, argmax};
}

}  // namespace

Tensor adaptive_avg_pool2d(const Tensor& x, const int64_t output_size[2]) {
  return avg_pool(x, 2, output_size, "adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward");
}

std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& x, const int64_t output_size[2]) {
  return max_pool(x, 2, output_size, "adaptive_max_pool2d", "AdaptiveMaxPool2DBackward");
}

Tensor adaptive_avg_pool1d(const Tensor& x, int64_t output_size) {
  return avg_pool(x, 1, &output_size, "adaptive_avg_pool1d", "AdaptiveAvgPool1DBackward");
}

std::pair<Tensor, Tensor> adaptive_max_pool1d(const Tensor& x, int64_t output_size) {
  return max_pool(x, 1, &output_size, "adaptive_max_pool1d", "AdaptiveMaxPool1DBackward");
}

}  // namespace tc::ops
