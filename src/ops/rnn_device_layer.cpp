// ops::rnn's layers through a device's whole-layer kernels (cuDNN's RNN API
// on CUDA): one call per layer for both directions, the input GEMM included,
// and one node whose backward is the library's backward data and weights.
// What the forward keeps for it (the packed weights, the reserve space) are
// byte tensors the node saves like any activation.
#include "ops/rnn_device_layer.h"

#include "autograd/function.h"
#include "core/error.h"

namespace tc::ops::detail {

namespace {

using rnn_fused::LayerConfig;
using rnn_fused::LayerKernels;

const LayerKernels& kernels_of(const Tensor& x) {
  const LayerKernels* k = rnn_fused::layer_kernels_for(x->device);
  TC_CHECK(k, TC_ERR_UNAVAILABLE, "rnn: the device's recurrent-layer kernels are gone (backend shut down)");
  return *k;
}

// The shapes of PyTorch's tensors of one direction, in their order.
std::vector<Dims> weight_shapes(const LayerConfig& c) {
  const int64_t gh = c.gates() * c.hidden;
  std::vector<Dims> s = {{gh, c.input}, {gh, c.out_size()}};
  if (c.has_bias) {
    s.push_back({gh});
    s.push_back({gh});
  }
  if (c.proj) s.push_back({c.proj, c.hidden});
  return s;
}

}  // namespace

bool device_layer_applies(const Tensor& x, const LayerConfig& cfg) {
  if (x->ndim() != 3 || x->shape[0] == 0 || x->shape[1] == 0) return false;
  const LayerKernels* k = rnn_fused::layer_kernels_for(x->device);
  return k && k->supports(cfg, x->dtype);
}

DeviceLayerResult device_layer(const LayerConfig& cfg, const Tensor& x, const Tensor& h0, const Tensor& c0,
                               const std::vector<Tensor>& weights) {
  const LayerKernels& k = kernels_of(x);
  const bool lstm = cfg.cell == rnn_fused::Cell::lstm;
  const int64_t steps = x->shape[0], batch = x->shape[1], dirs = cfg.dirs();
  const DType dt = x->dtype;
  const Device dev = x->device;

  std::vector<Tensor> inputs = {x, h0, lstm ? c0 : Tensor()};
  inputs.insert(inputs.end(), weights.begin(), weights.end());

  rnn_fused::LayerForwardArgs a;
  a.cfg = cfg;
  a.train = autograd::needs_grad(autograd::TensorList(inputs));
  a.x = tc::contiguous(x);
  for (const Tensor& w : weights) a.weights.push_back(tc::contiguous(w));
  a.hx = tc::contiguous(h0);
  a.cx = lstm ? tc::contiguous(c0) : Tensor();
  a.y = empty({steps, batch, dirs * cfg.out_size()}, dt, dev);
  a.hy = empty({dirs, batch, cfg.out_size()}, dt, dev);
  a.cy = lstm ? empty({dirs, batch, cfg.hidden}, dt, dev) : Tensor();
  k.forward(a);

  DeviceLayerResult r{a.y, a.hy, a.cy};
  const std::vector<Tensor> outputs =
      lstm ? std::vector<Tensor>{r.out, r.h_n, r.c_n} : std::vector<Tensor>{r.out, r.h_n};
  // saved: x, hx, cx, y (an alias: the node must not own its output), the
  // packed weights, the reserve.
  autograd::record_function(
      "CudnnRnnBackward", inputs, outputs, {a.x, a.hx, a.cx, autograd::alias(a.y), a.packed, a.reserve},
      [cfg, lstm, variant = a.variant](const autograd::Grads& g, const std::vector<Tensor>& s) {
        rnn_fused::LayerBackwardArgs b;
        b.cfg = cfg;
        b.x = s[0];
        b.hx = s[1];
        b.cx = s[2];
        b.y = s[3];
        b.packed = s[4];
        b.reserve = s[5];
        b.variant = variant;
        const DType dt = b.x->dtype;
        const Device dev = b.x->device;
        b.dy = g[0] ? tc::contiguous(g[0]) : Tensor();
        b.dhy = g.size() > 1 && g[1] ? tc::contiguous(g[1]) : Tensor();
        b.dcy = lstm && g.size() > 2 && g[2] ? tc::contiguous(g[2]) : Tensor();
        b.dx = empty(b.x->shape, dt, dev);
        b.dhx = empty(b.hx->shape, dt, dev);
        b.dcx = lstm ? empty(b.cx->shape, dt, dev) : Tensor();
        const std::vector<Dims> shapes = weight_shapes(cfg);
        for (int64_t d = 0; d < cfg.dirs(); ++d)
          for (const Dims& shape : shapes) b.d_weights.push_back(empty(shape, dt, dev));
        kernels_of(b.x).backward(b);
        autograd::Grads out = {b.dx, b.dhx, b.dcx};
        out.insert(out.end(), b.d_weights.begin(), b.d_weights.end());
        return out;
      });
  return r;
}

}  // namespace tc::ops::detail
