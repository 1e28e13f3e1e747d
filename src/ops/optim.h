// Optimizers (torch.optim semantics) as objects of the handle table. Each holds
// its parameters (the same tensors the caller has) and their per-parameter state.
#pragma once
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tc::optim {

struct Optimizer {
  virtual ~Optimizer() = default;
  // One update from the current gradients; parameters without a grad are
  // skipped. Serialized per optimizer: its state (moments, step counts, lr)
  // is libtc's bookkeeping, safe to use from several threads.
  void step() {
    std::lock_guard<std::mutex> lock(mu);
    // Every parameter it would write, before any is written: a refused step
    // changes nothing.
    for (const Tensor& p : params) {
      if (!p->grad()) continue;
      check_writable(p, "optimizer step");
      // A parameter's data may have been replaced since (set_data): the
      // steps compute in float32 and float64 only.
      TC_CHECK(p->dtype == DType::f32 || p->dtype == DType::f64, TC_ERR_DTYPE,
               "optimizer step: a parameter is now ", dtype_name(p->dtype),
               " (its data was replaced); expected float32 or float64");
    }
    follow_params();
    do_step();
  }
  // Sets every parameter's grad to none.
  void zero_grad() {
    std::lock_guard<std::mutex> lock(mu);
    for (const Tensor& p : params) p->set_grad(nullptr);
  }
  double get_lr() {
    std::lock_guard<std::mutex> lock(mu);
    return lr;
  }
  void set_lr(double value) {
    std::lock_guard<std::mutex> lock(mu);
    lr = value;
  }
  // The state as named tensors (tc.h: tc_optimizer_state_dict), copies.
  using Items = std::vector<std::pair<std::string, Tensor>>;
  Items state_dict() {
    std::lock_guard<std::mutex> lock(mu);
    return do_state_dict();
  }
  // Replaces hyperparameters and state from such items, all or nothing.
  void load_state_dict(const Items& items) {
    std::lock_guard<std::mutex> lock(mu);
    do_load_state_dict(items);
  }
  std::vector<Tensor> params;
  double lr = 0;  // read by do_step under mu

 protected:
  // Brings per-parameter state to its parameter's dtype and device when the
  // parameter's data was replaced since (Module.to after a first step), as
  // PyTorch's load_state_dict casts state to its parameter; a changed shape
  // throws TC_ERR_SHAPE before anything changes.
  virtual void follow_params() {}
  virtual void do_step() = 0;
  virtual Items do_state_dict() = 0;
  virtual void do_load_state_dict(const Items& items) = 0;
  std::mutex mu;
};

struct SgdOptions {
  double lr, momentum, dampening, weight_decay;
  bool nesterov;
};
struct AdamOptions {
  double lr, beta1, beta2, eps, weight_decay;
  bool decoupled;  // AdamW
};

// Check the parameters (floating leaves requiring grad) and the options the way
// torch.optim does, throwing TC_ERR_INVALID_ARGUMENT / TC_ERR_AUTOGRAD / TC_ERR_DTYPE.
std::shared_ptr<Optimizer> make_sgd(std::vector<Tensor> params, const SgdOptions& o);
std::shared_ptr<Optimizer> make_adam(std::vector<Tensor> params, const AdamOptions& o);
struct RmspropOptions {
  double lr, alpha, eps, weight_decay, momentum;
  bool centered;
};
struct AdagradOptions {
  double lr, lr_decay, weight_decay, initial_accumulator_value, eps;
};
std::shared_ptr<Optimizer> make_rmsprop(std::vector<Tensor> params, const RmspropOptions& o);
// Every parameter's sum starts at initial_accumulator_value now (as torch's).
std::shared_ptr<Optimizer> make_adagrad(std::vector<Tensor> params, const AdagradOptions& o);

// torch.nn.init's fan computation and initializers (in place, never recorded).
void kaiming_uniform_(const Tensor& t, double a);
void xavier_uniform_(const Tensor& t, double gain);
void uniform_(const Tensor& t, double low, double high);
void normal_(const Tensor& t, double mean, double std);

}  // namespace tc::optim
