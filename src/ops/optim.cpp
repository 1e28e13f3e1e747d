// SGD and Adam/AdamW with exactly torch.optim's update rules, written as plain
// loops over each parameter's (contiguous) data, and torch.nn.init's initializers.
#include "ops/optim.h"

#include <cmath>

#include "autograd/node.h"
#include "backend/backend.h"
#include "core/init.h"
#include "core/rng.h"
#include "math/optim_math.h"
#include "ops/optim_state.h"

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

// An optimizer of kind K after checking its parameters and options the way
// torch.optim does.
template <class K, class Options>
std::shared_ptr<Optimizer> make(const Kind<Options>& kind, std::vector<Tensor> params, const Options& o) {
  check_params(params, kind.name);
  kind.check(o);
  auto opt = std::make_shared<K>();
  opt->start(std::move(params), o);
  return opt;
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

void check_sgd_options(const SgdOptions& o) {
  TC_CHECK(std::isfinite(o.lr) && o.lr >= 0, TC_ERR_INVALID_ARGUMENT, "sgd: invalid learning rate ", o.lr);
  TC_CHECK(std::isfinite(o.momentum) && o.momentum >= 0, TC_ERR_INVALID_ARGUMENT, "sgd: invalid momentum ",
           o.momentum);
  TC_CHECK(std::isfinite(o.weight_decay) && o.weight_decay >= 0, TC_ERR_INVALID_ARGUMENT,
           "sgd: invalid weight_decay ", o.weight_decay);
  TC_CHECK(!o.nesterov || (o.momentum > 0 && o.dampening == 0), TC_ERR_INVALID_ARGUMENT,
           "sgd: nesterov momentum requires a momentum and zero dampening");
}

void check_adam_options(const AdamOptions& o) {
  TC_CHECK(std::isfinite(o.lr) && o.lr >= 0, TC_ERR_INVALID_ARGUMENT, "adam: invalid learning rate ", o.lr);
  TC_CHECK(std::isfinite(o.eps) && o.eps >= 0, TC_ERR_INVALID_ARGUMENT, "adam: invalid epsilon ", o.eps);
  TC_CHECK(o.beta1 >= 0 && o.beta1 < 1, TC_ERR_INVALID_ARGUMENT, "adam: invalid beta1 ", o.beta1);
  TC_CHECK(o.beta2 >= 0 && o.beta2 < 1, TC_ERR_INVALID_ARGUMENT, "adam: invalid beta2 ", o.beta2);
  TC_CHECK(std::isfinite(o.weight_decay) && o.weight_decay >= 0, TC_ERR_INVALID_ARGUMENT,
           "adam: invalid weight_decay ", o.weight_decay);
}

const Kind<SgdOptions> kSgd{
    "sgd",
    {number("lr", &SgdOptions::lr), number("momentum", &SgdOptions::momentum),
     number("dampening", &SgdOptions::dampening), number("weight_decay", &SgdOptions::weight_decay),
     flag("nesterov", &SgdOptions::nesterov)},
    /*min_step=*/std::nullopt,
    check_sgd_options};

struct Sgd : StatefulOptimizer<SgdOptions> {
  std::vector<Tensor> momentum;  // per parameter; null until its first step

  Sgd() : StatefulOptimizer(kSgd) {}

  // Always read from a dict that has the parameter's state (a buffer loaded
  // under a zero momentum is kept, unused); do_step makes it only with a momentum.
  std::vector<Slot> slots(const SgdOptions&) override { return {{"momentum_buffer", &momentum, true, {}}}; }

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

const Kind<AdamOptions> kAdam{"adam",
                              {number("lr", &AdamOptions::lr), number("beta1", &AdamOptions::beta1),
                               number("beta2", &AdamOptions::beta2), number("eps", &AdamOptions::eps),
                               number("weight_decay", &AdamOptions::weight_decay),
                               flag("decoupled_weight_decay", &AdamOptions::decoupled)},
                              /*min_step=*/1,
                              check_adam_options};

struct Adam : StatefulOptimizer<AdamOptions> {
  std::vector<Tensor> m, v;  // first and second moments, per parameter

  Adam() : StatefulOptimizer(kAdam) {}

  std::vector<Slot> slots(const AdamOptions&) override {
    return {{"exp_avg", &m, true, {}}, {"exp_avg_sq", &v, true, {}}};
  }

  void do_step() override {
    NoGradGuard ng;
    for (size_t i = 0; i < params.size(); ++i) {
      const Tensor& p = params[i];
      const Tensor grad = p->grad();
      if (!grad) continue;
      if (!m[i]) make_state(i);
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
  return make<Sgd>(kSgd, std::move(params), o);
}

std::shared_ptr<Optimizer> make_adam(std::vector<Tensor> params, const AdamOptions& o) {
  return make<Adam>(kAdam, std::move(params), o);
}

// ---- RMSprop and Adagrad (torch.optim's rules; state as Adam's) ----
namespace {

void check_rmsprop_options(const RmspropOptions& o) {
  TC_CHECK(std::isfinite(o.lr) && o.lr >= 0, TC_ERR_INVALID_ARGUMENT, "rmsprop: invalid learning rate ",
           o.lr);
  TC_CHECK(std::isfinite(o.eps) && o.eps >= 0, TC_ERR_INVALID_ARGUMENT, "rmsprop: invalid epsilon value ",
           o.eps);
  TC_CHECK(std::isfinite(o.momentum) && o.momentum >= 0, TC_ERR_INVALID_ARGUMENT,
           "rmsprop: invalid momentum value ", o.momentum);
  TC_CHECK(std::isfinite(o.weight_decay) && o.weight_decay >= 0, TC_ERR_INVALID_ARGUMENT,
           "rmsprop: invalid weight_decay value ", o.weight_decay);
  TC_CHECK(std::isfinite(o.alpha) && o.alpha >= 0, TC_ERR_INVALID_ARGUMENT, "rmsprop: invalid alpha value ",
           o.alpha);
}

void check_adagrad_options(const AdagradOptions& o) {
  TC_CHECK(std::isfinite(o.lr) && o.lr >= 0, TC_ERR_INVALID_ARGUMENT, "adagrad: invalid learning rate ",
           o.lr);
  TC_CHECK(std::isfinite(o.lr_decay) && o.lr_decay >= 0, TC_ERR_INVALID_ARGUMENT,
           "adagrad: invalid lr_decay value ", o.lr_decay);
  TC_CHECK(std::isfinite(o.weight_decay) && o.weight_decay >= 0, TC_ERR_INVALID_ARGUMENT,
           "adagrad: invalid weight_decay value ", o.weight_decay);
  TC_CHECK(std::isfinite(o.initial_accumulator_value) && o.initial_accumulator_value >= 0,
           TC_ERR_INVALID_ARGUMENT, "adagrad: invalid initial_accumulator_value value ",
           o.initial_accumulator_value);
  TC_CHECK(std::isfinite(o.eps) && o.eps >= 0, TC_ERR_INVALID_ARGUMENT, "adagrad: invalid epsilon value ",
           o.eps);
}

const Kind<RmspropOptions> kRmsprop{
    "rmsprop",
    {number("lr", &RmspropOptions::lr), number("alpha", &RmspropOptions::alpha),
     number("eps", &RmspropOptions::eps), number("weight_decay", &RmspropOptions::weight_decay),
     number("momentum", &RmspropOptions::momentum), flag("centered", &RmspropOptions::centered)},
    /*min_step=*/1,
    check_rmsprop_options};

struct Rmsprop : StatefulOptimizer<RmspropOptions> {
  std::vector<Tensor> sq, gavg, buf;  // per parameter; null until its first step

  Rmsprop() : StatefulOptimizer(kRmsprop) {}

  std::vector<Slot> slots(const RmspropOptions& x) override {
    return {{"square_avg", &sq, true, {}},
            {"momentum_buffer", &buf, x.momentum > 0, {}},
            {"grad_avg", &gavg, x.centered, {}}};
  }

  void do_step() override {
    NoGradGuard ng;
    for (size_t i = 0; i < params.size(); ++i) {
      const Tensor& p = params[i];
      const Tensor grad = p->grad();
      if (!grad) continue;
      const Operands x(p, grad, "rmsprop");  // checks grad before any state is made
      if (!sq[i]) make_state(i);
      ++steps[i];
      const RmspropStep s{lr, o.alpha, o.eps, o.weight_decay, o.momentum};
      backend_for(p).rmsprop_step(x.w, x.g, sq[i], o.centered ? gavg[i] : Tensor(),
                                  o.momentum > 0 ? buf[i] : Tensor(), s);
      x.finish(p);
    }
  }
};

const Kind<AdagradOptions> kAdagrad{
    "adagrad",
    {number("lr", &AdagradOptions::lr), number("lr_decay", &AdagradOptions::lr_decay),
     number("weight_decay", &AdagradOptions::weight_decay),
     number("initial_accumulator_value", &AdagradOptions::initial_accumulator_value),
     number("eps", &AdagradOptions::eps)},
    /*min_step=*/0,
    check_adagrad_options};

struct Adagrad : StatefulOptimizer<AdagradOptions> {
  std::vector<Tensor> sum;  // per parameter, from the start (initial_accumulator_value)

  Adagrad() : StatefulOptimizer(kAdagrad) {}

  std::vector<Slot> slots(const AdagradOptions& x) override {
    return {{"sum", &sum, true, x.initial_accumulator_value}};
  }

  void do_step() override {
    NoGradGuard ng;
    for (size_t i = 0; i < params.size(); ++i) {
      const Tensor& p = params[i];
      const Tensor grad = p->grad();
      if (!grad) continue;
      const Operands x(p, grad, "adagrad");
      const int64_t t = ++steps[i];
      const AdagradStep s{lr / (1 + double(t - 1) * o.lr_decay), o.eps, o.weight_decay};
      backend_for(p).adagrad_step(x.w, x.g, sum[i], s);
      x.finish(p);
    }
  }
};

}  // namespace

std::shared_ptr<Optimizer> make_rmsprop(std::vector<Tensor> params, const RmspropOptions& o) {
  return make<Rmsprop>(kRmsprop, std::move(params), o);
}

std::shared_ptr<Optimizer> make_adagrad(std::vector<Tensor> params, const AdagradOptions& o) {
  return make<Adagrad>(kAdagrad, std::move(params), o);
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
