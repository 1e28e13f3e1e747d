// SGD and Adam/AdamW with exactly torch.optim's update rules, written as plain
// loops over each parameter's (contiguous) data, and torch.nn.init's initializers.
#include "ops/optim.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

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

// ---- state dicts: "param_groups.0.<hyper>" and "state.<i>.<field>" ----

constexpr const char* kGroup = "param_groups.0.";

Tensor f64_scalar(double v) { return scalar_tensor(v, DType::f64, kCPU); }

Tensor snapshot(const Tensor& t) { return to_device(clone_data(t), kCPU); }

// The names of a state dict, sorted into hyperparameters and per-parameter
// fields, with every name checked against what the optimizer knows.
struct StateItems {
  std::map<std::string, Tensor> hyper;
  std::vector<std::map<std::string, Tensor>> state;  // per parameter

  StateItems(const Optimizer::Items& items, size_t nparams, const std::set<std::string>& hypers,
             const std::set<std::string>& fields, const char* kind) {
    state.resize(nparams);
    for (const auto& [name, t] : items) {
      if (name.rfind(kGroup, 0) == 0 && hypers.count(name.substr(std::strlen(kGroup)))) {
        hyper[name.substr(std::strlen(kGroup))] = t;
        continue;
      }
      if (name.rfind("state.", 0) == 0) {
        const std::string rest = name.substr(6);
        const size_t dot = rest.find('.');
        const std::string idx = rest.substr(0, dot);
        const bool digits = !idx.empty() && idx.size() <= 9 && (idx == "0" || idx[0] != '0') &&
                            std::all_of(idx.begin(), idx.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (digits && dot != std::string::npos && fields.count(rest.substr(dot + 1))) {
          const size_t i = size_t(std::stoul(idx));
          TC_CHECK(i < nparams, TC_ERR_INVALID_ARGUMENT, "\"", name, "\" is the state of parameter ", i,
                   " but the ", kind, " optimizer has ", nparams, " parameters");
          state[i][rest.substr(dot + 1)] = t;
          continue;
        }
      }
      fail(TC_ERR_INVALID_ARGUMENT, str("\"", name, "\" is not a name of a ", kind, " optimizer's state"));
    }
    for (const std::string& h : hypers)
      TC_CHECK(hyper.count(h), TC_ERR_INVALID_ARGUMENT, "the dict has no \"", kGroup, h,
               "\" (is it the state of a ", kind, " optimizer?)");
  }

  double value(const std::string& h) const {
    const Tensor& t = hyper.at(h);
    TC_CHECK(t->numel() == 1, TC_ERR_SHAPE, "\"", kGroup, h, "\" must have one element but has shape ",
             t->shape);
    return read_element(to_device(t, kCPU), 0);
  }
};

// A copy of src as the state of parameter p (same shape and dtype, on p's device).
Tensor state_like(const Tensor& p, const Tensor& src, const std::string& name) {
  TC_CHECK(src->shape == p->shape, TC_ERR_SHAPE, "\"", name, "\" has shape ", src->shape,
           " but its parameter has shape ", p->shape);
  TC_CHECK(src->dtype == p->dtype, TC_ERR_DTYPE, "\"", name, "\" is ", dtype_name(src->dtype),
           " but its parameter is ", dtype_name(p->dtype));
  return to_device(clone_data(src), p->device);
}

std::string state_name(size_t i, const char* field) { return str("state.", i, ".", field); }

// A 0-dim int64 step count, and one read back from a state dict (int64, or a
// whole float as torch keeps it), at least `lo`.
Tensor step_tensor(int64_t step) {
  Tensor t = empty(Dims{}, DType::i64, kCPU);
  *t->data_as<int64_t>() = step;
  return t;
}
int64_t step_value(const Tensor& s, const std::string& name, int64_t lo) {
  TC_CHECK(s->numel() == 1, TC_ERR_SHAPE, "\"", name, "\" must have one element but has shape ", s->shape);
  const Tensor sh = to_device(s, kCPU);
  int64_t step = 0;
  if (s->dtype == DType::i64) {
    step = *sh->data_as<int64_t>();
  } else {
    const double d = read_element(sh, 0);
    TC_CHECK(d == std::floor(d) && std::fabs(d) < 9e15, TC_ERR_INVALID_ARGUMENT, "\"", name,
             "\" must be a whole number but is ", d);
    step = int64_t(d);
  }
  TC_CHECK(step >= lo, TC_ERR_INVALID_ARGUMENT, "\"", name, "\" must be >= ", lo, " but is ", step);
  return step;
}

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

bool flag_value(double v, const char* what) {
  TC_CHECK(v == 0 || v == 1, TC_ERR_INVALID_ARGUMENT, "\"", kGroup, what, "\" must be 0 or 1 but is ", v);
  return v != 0;
}

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

  Items do_state_dict() override {
    Items out = {{str(kGroup, "lr"), f64_scalar(lr)},
                 {str(kGroup, "momentum"), f64_scalar(o.momentum)},
                 {str(kGroup, "dampening"), f64_scalar(o.dampening)},
                 {str(kGroup, "weight_decay"), f64_scalar(o.weight_decay)},
                 {str(kGroup, "nesterov"), f64_scalar(o.nesterov ? 1 : 0)}};
    for (size_t i = 0; i < params.size(); ++i)
      if (momentum[i]) out.emplace_back(state_name(i, "momentum_buffer"), snapshot(momentum[i]));
    return out;
  }

  void do_load_state_dict(const Items& items) override {
    const StateItems in(items, params.size(), {"lr", "momentum", "dampening", "weight_decay", "nesterov"},
                        {"momentum_buffer"}, "sgd");
    SgdOptions n{in.value("lr"), in.value("momentum"), in.value("dampening"), in.value("weight_decay"),
                 flag_value(in.value("nesterov"), "nesterov")};
    check_sgd_options(n);
    std::vector<Tensor> buffers(params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      const auto it = in.state[i].find("momentum_buffer");
      if (it != in.state[i].end())
        buffers[i] = state_like(params[i], it->second, state_name(i, "momentum_buffer"));
    }
    // Nothing below throws: the optimizer changes all at once.
    o = n;
    lr = n.lr;
    momentum.swap(buffers);
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

  Items do_state_dict() override {
    Items out = {{str(kGroup, "lr"), f64_scalar(lr)},
                 {str(kGroup, "beta1"), f64_scalar(o.beta1)},
                 {str(kGroup, "beta2"), f64_scalar(o.beta2)},
                 {str(kGroup, "eps"), f64_scalar(o.eps)},
                 {str(kGroup, "weight_decay"), f64_scalar(o.weight_decay)},
                 {str(kGroup, "decoupled_weight_decay"), f64_scalar(o.decoupled ? 1 : 0)}};
    for (size_t i = 0; i < params.size(); ++i) {
      if (!m[i]) continue;
      out.emplace_back(state_name(i, "step"), step_tensor(steps[i]));
      out.emplace_back(state_name(i, "exp_avg"), snapshot(m[i]));
      out.emplace_back(state_name(i, "exp_avg_sq"), snapshot(v[i]));
    }
    return out;
  }

  void do_load_state_dict(const Items& items) override {
    const StateItems in(items, params.size(),
                        {"lr", "beta1", "beta2", "eps", "weight_decay", "decoupled_weight_decay"},
                        {"step", "exp_avg", "exp_avg_sq"}, "adam");
    AdamOptions n{
        in.value("lr"),           in.value("beta1"),
        in.value("beta2"),        in.value("eps"),
        in.value("weight_decay"), flag_value(in.value("decoupled_weight_decay"), "decoupled_weight_decay")};
    check_adam_options(n);
    std::vector<Tensor> nm(params.size()), nv(params.size());
    std::vector<int64_t> nsteps(params.size(), 0);
    for (size_t i = 0; i < params.size(); ++i) {
      const auto& st = in.state[i];
      if (st.empty()) continue;
      for (const char* f : {"step", "exp_avg", "exp_avg_sq"})
        TC_CHECK(st.count(f), TC_ERR_INVALID_ARGUMENT, "the state of parameter ", i, " has no \"",
                 state_name(i, f), "\" (a partial state)");
      nsteps[i] = step_value(st.at("step"), state_name(i, "step"), 1);
      nm[i] = state_like(params[i], st.at("exp_avg"), state_name(i, "exp_avg"));
      nv[i] = state_like(params[i], st.at("exp_avg_sq"), state_name(i, "exp_avg_sq"));
    }
    o = n;
    lr = n.lr;
    m.swap(nm);
    v.swap(nv);
    steps.swap(nsteps);
  }
};

}  // namespace

std::shared_ptr<Optimizer> make_sgd(std::vector<Tensor> params, const SgdOptions& o) {
  check_params(params, "sgd");
  check_sgd_options(o);
  auto s = std::make_shared<Sgd>();
  s->o = o;
  s->lr = o.lr;
  s->momentum.resize(params.size());
  s->params = std::move(params);
  return s;
}

std::shared_ptr<Optimizer> make_adam(std::vector<Tensor> params, const AdamOptions& o) {
  check_params(params, "adam");
  check_adam_options(o);
  auto a = std::make_shared<Adam>();
  a->o = o;
  a->lr = o.lr;
  a->m.resize(params.size());
  a->v.resize(params.size());
  a->steps.assign(params.size(), 0);
  a->params = std::move(params);
  return a;
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

struct Rmsprop : Optimizer {
  RmspropOptions o;
  std::vector<Tensor> sq, gavg, buf;  // per parameter; null until its first step
  std::vector<int64_t> steps;

  void do_step() override {
    NoGradGuard ng;
    for (size_t i = 0; i < params.size(); ++i) {
      const Tensor& p = params[i];
      const Tensor grad = p->grad();
      if (!grad) continue;
      const Operands x(p, grad, "rmsprop");  // checks grad before any state is made
      if (!sq[i]) {
        sq[i] = zeros(p->shape, p->dtype, p->device);
        if (o.momentum > 0) buf[i] = zeros(p->shape, p->dtype, p->device);
        if (o.centered) gavg[i] = zeros(p->shape, p->dtype, p->device);
      }
      ++steps[i];
      const RmspropStep s{lr, o.alpha, o.eps, o.weight_decay, o.momentum};
      backend_for(p).rmsprop_step(x.w, x.g, sq[i], o.centered ? gavg[i] : Tensor(),
                                  o.momentum > 0 ? buf[i] : Tensor(), s);
      x.finish(p);
    }
  }

  Items do_state_dict() override {
    Items out = {{str(kGroup, "lr"), f64_scalar(lr)},
                 {str(kGroup, "alpha"), f64_scalar(o.alpha)},
                 {str(kGroup, "eps"), f64_scalar(o.eps)},
                 {str(kGroup, "weight_decay"), f64_scalar(o.weight_decay)},
                 {str(kGroup, "momentum"), f64_scalar(o.momentum)},
                 {str(kGroup, "centered"), f64_scalar(o.centered ? 1 : 0)}};
    for (size_t i = 0; i < params.size(); ++i) {
      if (!sq[i]) continue;
      out.emplace_back(state_name(i, "step"), step_tensor(steps[i]));
      out.emplace_back(state_name(i, "square_avg"), snapshot(sq[i]));
      if (buf[i]) out.emplace_back(state_name(i, "momentum_buffer"), snapshot(buf[i]));
      if (gavg[i]) out.emplace_back(state_name(i, "grad_avg"), snapshot(gavg[i]));
    }
    return out;
  }

  void do_load_state_dict(const Items& items) override {
    const StateItems in(items, params.size(), {"lr", "alpha", "eps", "weight_decay", "momentum", "centered"},
                        {"step", "square_avg", "momentum_buffer", "grad_avg"}, "rmsprop");
    RmspropOptions n{in.value("lr"),       in.value("alpha"),
                     in.value("eps"),      in.value("weight_decay"),
                     in.value("momentum"), flag_value(in.value("centered"), "centered")};
    check_rmsprop_options(n);
    const size_t np = params.size();
    std::vector<Tensor> nsq(np), ngavg(np), nbuf(np);
    std::vector<int64_t> nsteps(np, 0);
    for (size_t i = 0; i < np; ++i) {
      const auto& st = in.state[i];
      if (st.empty()) continue;
      std::vector<const char*> need = {"step", "square_avg"};
      if (n.momentum > 0) need.push_back("momentum_buffer");
      if (n.centered) need.push_back("grad_avg");
      for (const char* f : need)
        TC_CHECK(st.count(f), TC_ERR_INVALID_ARGUMENT, "the state of parameter ", i, " has no \"",
                 state_name(i, f), "\" (a partial state)");
      nsteps[i] = step_value(st.at("step"), state_name(i, "step"), 1);
      nsq[i] = state_like(params[i], st.at("square_avg"), state_name(i, "square_avg"));
      if (n.momentum > 0)
        nbuf[i] = state_like(params[i], st.at("momentum_buffer"), state_name(i, "momentum_buffer"));
      if (n.centered) ngavg[i] = state_like(params[i], st.at("grad_avg"), state_name(i, "grad_avg"));
    }
    o = n;
    lr = n.lr;
    sq.swap(nsq);
    gavg.swap(ngavg);
    buf.swap(nbuf);
    steps.swap(nsteps);
  }
};

struct Adagrad : Optimizer {
  AdagradOptions o;
  std::vector<Tensor> sum;  // per parameter, from the start (initial_accumulator_value)
  std::vector<int64_t> steps;

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

  Items do_state_dict() override {
    Items out = {{str(kGroup, "lr"), f64_scalar(lr)},
                 {str(kGroup, "lr_decay"), f64_scalar(o.lr_decay)},
                 {str(kGroup, "weight_decay"), f64_scalar(o.weight_decay)},
                 {str(kGroup, "initial_accumulator_value"), f64_scalar(o.initial_accumulator_value)},
                 {str(kGroup, "eps"), f64_scalar(o.eps)}};
    for (size_t i = 0; i < params.size(); ++i) {
      out.emplace_back(state_name(i, "step"), step_tensor(steps[i]));
      out.emplace_back(state_name(i, "sum"), snapshot(sum[i]));
    }
    return out;
  }

  void do_load_state_dict(const Items& items) override {
    const StateItems in(items, params.size(),
                        {"lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps"},
                        {"step", "sum"}, "adagrad");
    AdagradOptions n{in.value("lr"), in.value("lr_decay"), in.value("weight_decay"),
                     in.value("initial_accumulator_value"), in.value("eps")};
    check_adagrad_options(n);
    const size_t np = params.size();
    std::vector<Tensor> nsum(np);
    std::vector<int64_t> nsteps(np, 0);
    for (size_t i = 0; i < np; ++i) {
      const auto& st = in.state[i];
      if (st.empty()) {  // as a fresh optimizer's
        nsum[i] = full(params[i]->shape, n.initial_accumulator_value, params[i]->dtype, params[i]->device);
        continue;
      }
      for (const char* f : {"step", "sum"})
        TC_CHECK(st.count(f), TC_ERR_INVALID_ARGUMENT, "the state of parameter ", i, " has no \"",
                 state_name(i, f), "\" (a partial state)");
      nsteps[i] = step_value(st.at("step"), state_name(i, "step"), 0);
      nsum[i] = state_like(params[i], st.at("sum"), state_name(i, "sum"));
    }
    o = n;
    lr = n.lr;
    sum.swap(nsum);
    steps.swap(nsteps);
  }
};

}  // namespace

std::shared_ptr<Optimizer> make_rmsprop(std::vector<Tensor> params, const RmspropOptions& o) {
  check_params(params, "rmsprop");
  check_rmsprop_options(o);
  auto r = std::make_shared<Rmsprop>();
  r->o = o;
  r->lr = o.lr;
  r->sq.resize(params.size());
  r->gavg.resize(params.size());
  r->buf.resize(params.size());
  r->steps.assign(params.size(), 0);
  r->params = std::move(params);
  return r;
}

std::shared_ptr<Optimizer> make_adagrad(std::vector<Tensor> params, const AdagradOptions& o) {
  check_params(params, "adagrad");
  check_adagrad_options(o);
  auto a = std::make_shared<Adagrad>();
  a->o = o;
  a->lr = o.lr;
  for (const Tensor& p : params)
    a->sum.push_back(full(p->shape, o.initial_accumulator_value, p->dtype, p->device));
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
