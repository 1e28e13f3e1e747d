// batch_norm and group_norm as fused primitives of the device backend
// (src/backend/backend.h: batch_norm_forward/apply/backward, group_norm_forward/
// backward) with one autograd node each that keeps the statistics, like
// PyTorch's native_batch_norm / native_group_norm (the arguments are checked
// by src/ops/nn_layers.cpp). The backward is not itself differentiable
// (PyTorch's is): a second-order gradient through these nodes is refused by
// the engine as for layer_norm.
#include "ops/norm_layers.h"

#include "autograd/node.h"
#include "backend/backend.h"
#include "core/init.h"
#include "math/rows/unary_rsqrt.h"
#include "math/scalar_op_enum.h"
#include "ops/internal.h"
#include "ops/nn_util.h"
#include "ops/norm_backward_node.h"
#include "ops/ops.h"

namespace tc::ops::detail {
namespace {

struct NormLayerBackward : NormBackwardNode {
  int64_t groups = 0;  // 0: batch norm; mean and inv_std are [C] (batch norm) or [N, groups]
  bool training = true;
  const char* name() const override { return groups ? "NativeGroupNormBackward" : "NativeBatchNormBackward"; }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    const Wanted want = check_and_wanted();
    Tensor x = x_saved.unpack(name());
    Tensor w = has_w ? w_saved.unpack(name()) : Tensor();
    const Tensor mean = mean_saved.unpack(name()), inv_std = inv_std_saved.unpack(name());
    const int64_t c = x->shape[1];
    if (creating_graph()) {
      std::vector<Tensor> r = recorded(
          x, w, {c}, want, grads[0],
          [&](const Tensor& xi, const Tensor& wi, const Tensor& bi) { return composed_forward(xi, wi, bi); });
      if (!r.empty()) return r;
    }
    x = tc::contiguous(x);  // the kernels' layout (the input itself is saved, for the recorded form)
    Tensor gx = want.x ? empty(x->shape, x->dtype, x->device) : Tensor();
    Tensor gw = want.w ? empty({c}, x->dtype, x->device) : Tensor();
    Tensor gb = want.b ? empty({c}, x->dtype, x->device) : Tensor();
    Tensor g = tc::contiguous(grads[0]), wc = w ? tc::contiguous(w) : Tensor();
    if (groups)
      backend_for(x).group_norm_backward(gx, gw, gb, g, x, mean, inv_std, wc, groups);
    else
      backend_for(x).batch_norm_backward(gx, gw, gb, g, x, mean, inv_std, wc, training);
    std::vector<Tensor> out = in_order(gx, gw, gb);
    autograd::not_differentiable(out);  // only under create_graph (the recorded form was not possible)
    return out;
  }
  // The forward in recorded ops: batch statistics over all dims but 1
  // (training), the saved running ones (eval: constants), or per group.
  Tensor composed_forward(const Tensor& x, const Tensor& w, const Tensor& b) const {
    const int64_t n = x->shape[0], c = x->shape[1];
    Dims bshape = Dims::filled(x->ndim(), 1);
    bshape[1] = c;
    Tensor y;
    if (groups) {
      const Tensor xr = reshape(x, {n, groups, -1});
      const Tensor xc = sub(xr, ops::mean(xr, {2}, true));
      y = reshape(mul(xc, unary(row::rsqrt, add_scalar(ops::mean(mul(xc, xc), {2}, true), eps))), x->shape);
    } else if (training) {
      Dims dims;
      for (int64_t d = 0; d < x->ndim(); ++d)
        if (d != 1) dims.push_back(d);
      const Tensor xc = sub(x, ops::mean(x, dims, true));
      y = mul(xc, unary(row::rsqrt, add_scalar(ops::mean(mul(xc, xc), dims, true), eps)));
    } else {
      y = mul(sub(x, reshape(mean_saved.unpack(name()), bshape)),
              reshape(inv_std_saved.unpack(name()), bshape));
    }
    if (w) y = mul(y, reshape(w, bshape));
    if (b) y = add(y, reshape(b, bshape));
    return y;
  }
};

void record_node(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& mean,
                 const Tensor& invstd, int64_t groups, bool training, double eps) {
  std::vector<Tensor> inputs = defined({x, w, b});
  if (!autograd::needs_grad(inputs)) return;
  auto node = std::make_shared<NormLayerBackward>();
  // x itself (backward makes it contiguous for the kernels): the recorded
  // form under create_graph differentiates through it.
  node->x_saved = autograd::SavedTensor(x);
  if (w) node->w_saved = autograd::SavedTensor(w);
  node->mean_saved = autograd::SavedTensor(mean);
  node->inv_std_saved = autograd::SavedTensor(invstd);
  node->groups = groups;
  node->training = training;
  node->eps = eps;
  node->has_w = bool(w);
  node->has_b = bool(b);
  autograd::record(node, inputs, {y});
}

Tensor contiguous_or_null(const Tensor& t) { return t ? tc::contiguous(t) : Tensor(); }

// running = (1 - momentum) running + momentum batch, in place, unrecorded.
void update_running(const Tensor& running, const Tensor& batch, double momentum) {
  NoGradGuard no_grad;
  copy_(running, add(mul_scalar(running, 1.0 - momentum), mul_scalar(batch, momentum)));
}

}  // namespace

Tensor batch_norm_train(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& running_mean,
                        const Tensor& running_var, double momentum, double eps) {
  const int64_t c = x->shape[1];
  Tensor xc = tc::contiguous(x);
  Tensor y = empty(x->shape, x->dtype, x->device);
  Tensor mean = empty({c}, x->dtype, x->device), invstd = empty({c}, x->dtype, x->device);
  Tensor var = running_var ? empty({c}, x->dtype, x->device) : Tensor();
  backend_for(x).batch_norm_forward(y, mean, invstd, var, xc, contiguous_or_null(w), contiguous_or_null(b),
                                    eps);
  if (running_mean) {
    update_running(running_mean, mean, momentum);
    update_running(running_var, var, momentum);
  }
  record_node(y, x, w, b, mean, invstd, 0, true, eps);
  return y;
}

Tensor batch_norm_eval(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& running_mean,
                       const Tensor& running_var, double eps) {
  Tensor xc = tc::contiguous(x);
  Tensor y = empty(x->shape, x->dtype, x->device);
  Tensor mean, invstd;
  {
    // Copies: the node keeps the statistics used, whatever later updates do.
    NoGradGuard no_grad;
    mean = mul_scalar(running_mean, 1.0);
    invstd = binary_scalar(ScalarOp::pow, add_scalar(running_var, eps), -0.5);
  }
  backend_for(x).batch_norm_apply(y, xc, mean, invstd, contiguous_or_null(w), contiguous_or_null(b));
  record_node(y, x, w, b, mean, invstd, 0, false, eps);
  return y;
}

Tensor group_norm_fused(const Tensor& x, int64_t groups, const Tensor& w, const Tensor& b, double eps) {
  const int64_t n = x->shape[0];
  Tensor xc = tc::contiguous(x);
  Tensor y = empty(x->shape, x->dtype, x->device);
  // Zeros for an empty x: its backward reads them (and sums nothing).
  auto stat = [&] {
    return x->numel() > 0 ? empty({n, groups}, x->dtype, x->device) : zeros({n, groups}, x->dtype, x->device);
  };
  Tensor mean = stat(), invstd = stat();
  if (x->numel() > 0)
    backend_for(x).group_norm_forward(y, mean, invstd, xc, contiguous_or_null(w), contiguous_or_null(b),
                                      groups, eps);
  record_node(y, x, w, b, mean, invstd, groups, true, eps);
  return y;
}

}  // namespace tc::ops::detail
