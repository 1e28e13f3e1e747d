// tc_* functions of tc.h's initializer and optimizer sections.
#include "ops/optim.h"

#include <cmath>

#include "abi/api.h"
#include "abi/args.h"
#include "io/safetensors.h"

using namespace tc;

namespace {

std::vector<Tensor> param_list(const tc_tensor* params, int64_t count) {
  TC_CHECK(count > 0, TC_ERR_INVALID_ARGUMENT, "count must be positive but is ", count);
  in_ptr(params, "params");
  std::vector<Tensor> ps;
  ps.reserve(size_t(count));
  for (int64_t i = 0; i < count; ++i) ps.push_back(get_tensor(params[i], "params[i]"));
  return ps;
}

std::shared_ptr<optim::Optimizer> get_optimizer(tc_optimizer h) {
  return std::static_pointer_cast<optim::Optimizer>(
      handle_get(reinterpret_cast<uint64_t>(h), HandleKind::optimizer, "opt"));
}

using abi::options_arg;

tc_optimizer new_optimizer(std::shared_ptr<optim::Optimizer> o) {
  return reinterpret_cast<tc_optimizer>(handle_insert(HandleKind::optimizer, std::move(o)));
}

}  // namespace

TC_API int32_t tc_uniform_(tc_tensor t, double low, double high) {
  return api(__func__, [&] { optim::uniform_(get_tensor(t, "t"), low, high); });
}
TC_API int32_t tc_normal_(tc_tensor t, double mean, double std) {
  return api(__func__, [&] { optim::normal_(get_tensor(t, "t"), mean, std); });
}
TC_API int32_t tc_kaiming_uniform_(tc_tensor t, double a) {
  return api(__func__, [&] { optim::kaiming_uniform_(get_tensor(t, "t"), a); });
}
TC_API int32_t tc_xavier_uniform_(tc_tensor t, double gain) {
  return api(__func__, [&] { optim::xavier_uniform_(get_tensor(t, "t"), gain); });
}

TC_API int32_t tc_optimizer_sgd(const tc_tensor* params, int64_t count, const tc_sgd_options* options,
                                tc_optimizer* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    const tc_sgd_options& o = options_arg(options, "options");
    auto opt = optim::make_sgd(param_list(params, count),
                               {o.lr, o.momentum, o.dampening, o.weight_decay, o.nesterov != 0});
    *out = new_optimizer(std::move(opt));
  });
}

TC_API int32_t tc_optimizer_adam(const tc_tensor* params, int64_t count, const tc_adam_options* options,
                                 tc_optimizer* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    const tc_adam_options& o = options_arg(options, "options");
    auto opt = optim::make_adam(param_list(params, count), {o.lr, o.beta1, o.beta2, o.eps, o.weight_decay,
                                                            o.decoupled_weight_decay != 0});
    *out = new_optimizer(std::move(opt));
  });
}

TC_API int32_t tc_optimizer_rmsprop(const tc_tensor* params, int64_t count, const tc_rmsprop_options* options,
                                    tc_optimizer* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    const tc_rmsprop_options& o = options_arg(options, "options");
    auto opt = optim::make_rmsprop(param_list(params, count),
                                   {o.lr, o.alpha, o.eps, o.weight_decay, o.momentum, o.centered != 0});
    *out = new_optimizer(std::move(opt));
  });
}

TC_API int32_t tc_optimizer_adagrad(const tc_tensor* params, int64_t count, const tc_adagrad_options* options,
                                    tc_optimizer* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    const tc_adagrad_options& o = options_arg(options, "options");
    auto opt = optim::make_adagrad(param_list(params, count),
                                   {o.lr, o.lr_decay, o.weight_decay, o.initial_accumulator_value, o.eps});
    *out = new_optimizer(std::move(opt));
  });
}

TC_API int32_t tc_optimizer_step(tc_optimizer opt) {
  return api(__func__, [&] { get_optimizer(opt)->step(); });
}

TC_API int32_t tc_optimizer_zero_grad(tc_optimizer opt) {
  return api(__func__, [&] { get_optimizer(opt)->zero_grad(); });
}

TC_API int32_t tc_optimizer_get_lr(tc_optimizer opt, double* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = get_optimizer(opt)->get_lr();
  });
}

TC_API int32_t tc_optimizer_set_lr(tc_optimizer opt, double lr) {
  return api(__func__, [&] {
    const auto o = get_optimizer(opt);  // the handle first, as every shim checks it before values
    TC_CHECK(std::isfinite(lr) && lr >= 0, TC_ERR_INVALID_ARGUMENT, "lr must be finite and >= 0 but is ", lr);
    o->set_lr(lr);
  });
}

TC_API int32_t tc_optimizer_free(tc_optimizer opt) {
  return api(__func__, [&] { handle_remove(reinterpret_cast<uint64_t>(opt), HandleKind::optimizer, "opt"); });
}

TC_API int32_t tc_optimizer_state_dict(tc_optimizer opt, tc_tensor_dict* out) {
  return api(__func__, [&] {
    const auto o = get_optimizer(opt);
    out_ptr(out, "out");
    auto d = std::make_shared<io::TensorDict>();
    for (auto& [name, t] : o->state_dict()) d->set(name, std::move(t));
    *out = new_dict_handle(std::move(d));
  });
}

TC_API int32_t tc_optimizer_load_state_dict(tc_optimizer opt, tc_tensor_dict dict) {
  return api(__func__, [&] {
    const auto o = get_optimizer(opt);
    const auto d = get_dict(dict, "dict");
    o->load_state_dict(d->items());
  });
}
