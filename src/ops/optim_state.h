// The state dicts of the optimizers, described once per kind and saved and
// loaded by one implementation: "param_groups.0.<hyper>" (float64 scalars,
// flags as 0 or 1) and "state.<i>.<slot>" (copies of the per-parameter state
// tensors, with "state.<i>.step" where the kind counts steps).
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ops/optim.h"

namespace tc::optim {

// A hyperparameter: a member of the kind's options, a number or a flag.
template <class Options>
struct Hyper {
  const char* name;
  double Options::*number;
  bool Options::*flag;
};
template <class Options>
Hyper<Options> number(const char* name, double Options::*member) {
  return {name, member, nullptr};
}
template <class Options>
Hyper<Options> flag(const char* name, bool Options::*member) {
  return {name, nullptr, member};
}

// A per-parameter state tensor of one kind.
struct Slot {
  const char* name;
  std::vector<Tensor>* tensors;   // one per parameter; null while the parameter has no state
  bool used;                      // under the options at hand: made by a first step, required by a load
  std::optional<double> initial;  // a value: the tensor is full of it from the start (never null)
};

// What a load read from a dict: each slot's tensors and the step counts,
// checked against the parameters (shapes, dtypes) and on their devices.
struct LoadedState {
  std::vector<std::vector<Tensor>> slots;  // as the slots given to StateItems::read
  std::vector<int64_t> steps;
};

// The named tensors of a state dict. steps: null where the kind counts none.
Optimizer::Items save_state(const std::vector<std::pair<const char*, double>>& hypers,
                            const std::vector<Slot>& slots, const std::vector<int64_t>* steps,
                            size_t nparams);

// The dict's items sorted into hyperparameters and per-parameter fields, every
// name checked against the kind's.
class StateItems {
 public:
  StateItems(const Optimizer::Items& items, size_t nparams, const std::set<std::string>& hypers,
             const std::set<std::string>& fields, const char* kind);
  // The value of a hyperparameter (a one-element tensor); a flag must be 0 or 1.
  double value(const std::string& h) const;
  bool flag(const std::string& h) const;
  // The state of each parameter read under the slots used by the new options;
  // min_step: the least step count, none where the kind counts no steps.
  LoadedState read(const std::vector<Tensor>& params, const std::vector<Slot>& slots,
                   std::optional<int64_t> min_step) const;

 private:
  std::map<std::string, Tensor> hyper_;
  std::vector<std::map<std::string, Tensor>> state_;  // per parameter
};

// A kind of optimizer, described once: its name, hyperparameters (in the
// order of its dicts), whether it counts steps (and the least count a dict may
// hold), and its options' check.
template <class Options>
struct Kind {
  const char* name;
  std::vector<Hyper<Options>> hypers;
  std::optional<int64_t> min_step;
  void (*check)(const Options&);
};

// An optimizer whose options and per-parameter state a Kind and slots()
// describe; the state dict's save and load are written once, here.
template <class Options>
struct StatefulOptimizer : Optimizer {
  explicit StatefulOptimizer(const Kind<Options>& k) : kind(k) {}

  const Kind<Options>& kind;
  Options o;
  std::vector<int64_t> steps;  // per parameter, where the kind counts steps
  // Each parameter's data_generation when its state last matched it.
  std::vector<uint32_t> generations;

  // The first state of a new optimizer: o, every slot null (or full of its
  // initial value) and every step count 0.
  void start(std::vector<Tensor> ps, const Options& opts) {
    o = opts;
    lr = opts.lr;
    for (const Slot& s : slots(opts)) {
      s.tensors->clear();
      for (const Tensor& p : ps)
        s.tensors->push_back(s.initial ? full(p->shape, *s.initial, p->dtype, p->device) : Tensor());
    }
    if (kind.min_step) steps.assign(ps.size(), 0);
    generations.clear();
    for (const Tensor& p : ps) generations.push_back(p->data_generation);
    params = std::move(ps);
  }

 protected:
  // The kind's per-parameter state (the first slot is set once a parameter
  // has state), each slot marked used or not under the options x.
  virtual std::vector<Slot> slots(const Options& x) = 0;

  // Parameter i's first step: zeros in the slots o uses. The step tests its
  // own first slot before calling (a step with state builds no slot list).
  void make_state(size_t i) {
    const Tensor& p = params[i];
    for (const Slot& s : slots(o))
      if (s.used) (*s.tensors)[i] = zeros(p->shape, p->dtype, p->device);
  }

  void follow_params() override {
    // Nothing to do unless some parameter's data was replaced since: no slot
    // list is built on an ordinary step.
    bool replaced = false;
    for (size_t i = 0; i < params.size(); ++i)
      replaced = replaced || params[i]->data_generation != generations[i];
    if (!replaced) return;
    const std::vector<Slot> all = slots(o);
    for (const Slot& s : all)
      for (size_t i = 0; i < params.size(); ++i) {
        const Tensor& t = (*s.tensors)[i];
        TC_CHECK(!t || t->shape == params[i]->shape, TC_ERR_SHAPE, kind.name, ": the state '", s.name,
                 "' of parameter ", i, " has shape ", t->shape, " but the parameter now has shape ",
                 params[i]->shape, " (its data was replaced after the optimizer's first step)");
      }
    for (const Slot& s : all)
      for (size_t i = 0; i < params.size(); ++i) {
        Tensor& t = (*s.tensors)[i];
        const Tensor& p = params[i];
        if (t && (t->dtype != p->dtype || t->device != p->device))
          t = to_device(cast(t, p->dtype), p->device);
      }
    for (size_t i = 0; i < params.size(); ++i) generations[i] = params[i]->data_generation;
  }

  Items do_state_dict() override {
    std::vector<std::pair<const char*, double>> values;
    for (const Hyper<Options>& h : kind.hypers) {
      const double v = h.number == &Options::lr ? lr : h.number ? o.*h.number : (o.*h.flag ? 1 : 0);
      values.emplace_back(h.name, v);  // lr: the current one (set_lr), not the options'
    }
    return save_state(values, slots(o), kind.min_step ? &steps : nullptr, params.size());
  }

  void do_load_state_dict(const Items& items) override {
    std::set<std::string> hyper_names, fields;
    for (const Hyper<Options>& h : kind.hypers) hyper_names.insert(h.name);
    for (const Slot& s : slots(o)) fields.insert(s.name);
    if (kind.min_step) fields.insert("step");
    const StateItems in(items, params.size(), hyper_names, fields, kind.name);
    Options n{};
    for (const Hyper<Options>& h : kind.hypers) {
      if (h.number)
        n.*h.number = in.value(h.name);
      else
        n.*h.flag = in.flag(h.name);
    }
    kind.check(n);
    const std::vector<Slot> next = slots(n);
    LoadedState loaded = in.read(params, next, kind.min_step);
    // Nothing below throws: the optimizer changes all at once.
    o = n;
    lr = n.lr;
    for (size_t k = 0; k < next.size(); ++k) next[k].tensors->swap(loaded.slots[k]);
    if (kind.min_step) steps.swap(loaded.steps);
  }
};

}  // namespace tc::optim
