// SGD and Adam/AdamW with exactly torch.optim's update rules, written as plain
// loops over each parameter's (contiguous) data, and torch.nn.init's initializers.
#include "ops/optim.h"

#include <cmath>

#include "autograd/node.h"
#include "backend.h"
#include "init.h"
#include "math/optim_math.h"
#include "rng.h"

namespace tc::optim {

namespace {

void check_params(const std::vector<Tensor>& params, const char* what) {
  TC_CHECK(!params.empty(), TC_ERR_INVALID_ARGUMENT, what, ": expected at least one parameter");
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    TC_CHECK(p->dtype == DType::f32 || p->dtype == DType::f64, TC_ERR_DTYPE, what, ": parameter ", i, " is ",
             dtype_name(p->dtype), " (expected float32 or float64)");
    TC_CHECK(p->is_leaf(), TC_ERR_AUTOGRAD, what, ": parameter ", i, " is not a leaf (made by ",
             p->grad_fn->name(), ")");
    TC_CHECK(p->requires_grad, TC_ERR_AUTOGRAD, what, ": parameter ", i, " does not require grad");
    TC_CHECK(device_type(p->device) == TC_DEVICE_CPU || device_type(p->device) == TC_DEVICE_CUDA,
             TC_ERR_NOT_IMPLEMENTED, what, ": parameter ", i, " is on ", device_name(p->device),
             "; optimizers run on the CPU and CUDA only");
  }
}

// The parameter's data as a contiguous tensor (p itself, or a copy that
// finish() writes back) and its grad as a contiguous tensor of p's dtype, on
// p's device.
struct Operands {
  Tensor w, g;
  // grad: one snapshot of p's grad (another thread may clear it meanwhile).
  Operands(const Tensor& p, const Tensor& grad, const char* what) {
    TC_CHECK(grad->device == p->device, TC_ERR_DEVICE, what, ": the grad of a parameter on ",
             device_name(p->device), " is on ", device_name(grad->device));
    TC_CHECK(grad->shape == p->shape, TC_ERR_SHAPE, what, ": a parameter of shape ", p->shape,
             " has a grad of shape ", grad->shape);
    w = p->is_contiguous() ? p : clone_data(p);
    g = contiguous_on_device(cast(grad, p->dtype));
  }
  void finish(const Tensor& p) const {
    if (w != p) copy_into(p, w);
    p->bump_version();
  }
};

struct Sgd : Optimizer {
  SgdOptions o;
  std::vector<Tensor> momentum;  // per parameter; null until its first step

  void do_step() override {
    NoGradGuard ng;
    for (size_t i = 0; i < params.size(); ++i) {
      const Tensor& p = params[i];
      const Tensor grad = p->grad();
      if (!grad) continue;
      const bool first = !momentum[i];
      if (o.momentum != 0 && first) momentum[i] = zeros(p->shape, p->dtype, p->device);
      const SgdStep s{lr, o.momentum, o.dampening, o.weight_decay, o.nesterov, first};
      const Operands x(p, grad, "sgd");
      const Tensor buf = o.momentum != 0 ? momentum[i] : Tensor();
      backend_for(p).sgd_step(x.w, x.g, buf, s);
      x.finish(p);
    }
  }
};

struct Adam : Optimizer {
  AdamOptions o;
  std::vector<Tensor> m, v;  // first and second moments, per parameter
  std::vector<int64_t> steps;

  void do_step() override {
    NoGradGuard ng;
    for (size_t i = 0; i < params.size(); ++i) {
      const Tensor& p = params[i];
      const Tensor grad = p->grad();
      if (!grad) continue;
      if (!m[i]) {
        m[i] = zeros(p->shape, p->dtype, p->device);
        v[i] = zeros(p->shape, p->dtype, p->device);
      }
      const int64_t t = ++steps[i];
      const double bc1 = 1 - std::pow(o.beta1, double(t));
      const double bc2 = 1 - std::pow(o.beta2, double(t));
      const AdamStep s{lr, o.beta1, o.beta2, o.eps, o.weight_decay, lr / bc1, std::sqrt(bc2), o.decoupled};
      const Operands x(p, grad, "adam");
      backend_for(p).adam_step(x.w, x.g, m[i], v[i], s);
      x.finish(p);
    }
  }
};

}  // namespace

std::shared_ptr<Optimizer> make_sgd(std::vector<Tensor> params, const SgdOptions& o) {
  check_params(params, "sgd");
  TC_CHECK(std::isfinite(o.lr) && o.lr >= 0, TC_ERR_INVALID_ARGUMENT, "sgd: invalid learning rate ", o.lr);
  TC_CHECK(std::isfinite(o.momentum) && o.momentum >= 0, TC_ERR_INVALID_ARGUMENT, "sgd: invalid momentum ",
           o.momentum);
  TC_CHECK(std::isfinite(o.weight_decay) && o.weight_decay >= 0, TC_ERR_INVALID_ARGUMENT,
           "sgd: invalid weight_decay ", o.weight_decay);
  TC_CHECK(!o.nesterov || (o.momentum > 0 && o.dampening == 0), TC_ERR_INVALID_ARGUMENT,
           "sgd: nesterov momentum requires a momentum and zero dampening");
  auto s = std::make_shared<Sgd>();
  s->o = o;
  s->lr = o.lr;
  s->momentum.resize(params.size());
  s->params = std::move(params);
  return s;
}

std::shared_ptr<Optimizer> make_adam(std::vector<Tensor> params, const AdamOptions& o) {
  check_params(params, "adam");
  TC_CHECK(std::isfinite(o.lr) && o.lr >= 0, TC_ERR_INVALID_ARGUMENT, "adam: invalid learning rate ", o.lr);
  TC_CHECK(std::isfinite(o.eps) && o.eps >= 0, TC_ERR_INVALID_ARGUMENT, "adam: invalid epsilon ", o.eps);
  TC_CHECK(o.beta1 >= 0 && o.beta1 < 1, TC_ERR_INVALID_ARGUMENT, "adam: invalid beta1 ", o.beta1);
  TC_CHECK(o.beta2 >= 0 && o.beta2 < 1, TC_ERR_INVALID_ARGUMENT, "adam: invalid beta2 ", o.beta2);
  TC_CHECK(std::isfinite(o.weight_decay) && o.weight_decay >= 0, TC_ERR_INVALID_ARGUMENT,
           "adam: invalid weight_decay ", o.weight_decay);
  auto a = std::make_shared<Adam>();
  a->o = o;
  a->lr = o.lr;
  a->m.resize(params.size());
  a->v.resize(params.size());
  a->steps.assign(params.size(), 0);
  a->params = std::move(params);
  return a;
}

namespace {

void check_init_target(const Tensor& t, const char* what) {
  check_writable(t, what);
  TC_CHECK(t->dtype == DType::f32 || t->dtype == DType::f64, TC_ERR_DTYPE, what,
           ": expected a float32 or float64 tensor but got ", dtype_name(t->dtype));
}

// torch.nn.init._calculate_fan_in_and_fan_out.
std::pair<double, double> fans(const Tensor& t, const char* what) {
  TC_CHECK(t->ndim() >= 2, TC_ERR_SHAPE, what,
           ": fan in and fan out cannot be computed for a tensor with fewer "
           "than 2 dims (shape ",
           t->shape, ")");
  double receptive = 1;
  for (int64_t d = 2; d < t->ndim(); ++d) receptive *= double(t->shape[d]);
  return {double(t->shape[1]) * receptive, double(t->shape[0]) * receptive};
}

}  // namespace

void uniform_(const Tensor& t, double low, double high) {
  check_init_target(t, "uniform_");
  fill_uniform(t, low, high);
  t->bump_version();
}

void normal_(const Tensor& t, double mean, double std) {
  check_init_target(t, "normal_");
  fill_normal(t, mean, std);
  t->bump_version();
}

void kaiming_uniform_(const Tensor& t, double a) {
  check_init_target(t, "kaiming_uniform_");
  const auto [fan_in, fan_out] = fans(t, "kaiming_uniform_");
  (void)fan_out;
  if (t->numel() == 0) return;  // torch: a no-op on zero-element tensors
  const double gain = std::sqrt(2.0 / (1 + a * a));
  const double bound = std::sqrt(3.0) * gain / std::sqrt(fan_in);
  uniform_(t, -bound, bound);
}

void xavier_uniform_(const Tensor& t, double gain) {
  check_init_target(t, "xavier_uniform_");
  const auto [fan_in, fan_out] = fans(t, "xavier_uniform_");
  if (t->numel() == 0) return;
  const double bound = std::sqrt(3.0) * gain * std::sqrt(2.0 / (fan_in + fan_out));
  uniform_(t, -bound, bound);
}

}  // namespace tc::optim
