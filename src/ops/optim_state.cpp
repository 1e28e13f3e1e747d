// The optimizers' state dicts: one save and one load for every kind (see optim_state.h).
#include "ops/optim_state.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tc::optim {

namespace {

constexpr const char* kGroup = "param_groups.0.";

Tensor f64_scalar(double v) { return scalar_tensor(v, DType::f64, kCPU); }

Tensor snapshot(const Tensor& t) { return to_device(clone_data(t), kCPU); }

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

// A copy of src as the state of parameter p (same shape and dtype, on p's device).
Tensor state_like(const Tensor& p, const Tensor& src, const std::string& name) {
  TC_CHECK(src->shape == p->shape, TC_ERR_SHAPE, "\"", name, "\" has shape ", src->shape,
           " but its parameter has shape ", p->shape);
  TC_CHECK(src->dtype == p->dtype, TC_ERR_DTYPE, "\"", name, "\" is ", dtype_name(src->dtype),
           " but its parameter is ", dtype_name(p->dtype));
  return to_device(clone_data(src), p->device);
}

}  // namespace

Optimizer::Items save_state(const std::vector<std::pair<const char*, double>>& hypers,
                            const std::vector<Slot>& slots, const std::vector<int64_t>* steps,
                            size_t nparams) {
  Optimizer::Items out;
  for (const auto& [name, v] : hypers) out.emplace_back(str(kGroup, name), f64_scalar(v));
  for (size_t i = 0; i < nparams; ++i) {
    if (!(*slots.front().tensors)[i]) continue;  // no state yet
    if (steps) out.emplace_back(state_name(i, "step"), step_tensor((*steps)[i]));
    for (const Slot& s : slots)
      if (const Tensor& t = (*s.tensors)[i]) out.emplace_back(state_name(i, s.name), snapshot(t));
  }
  return out;
}

StateItems::StateItems(const Optimizer::Items& items, size_t nparams, const std::set<std::string>& hypers,
                       const std::set<std::string>& fields, const char* kind) {
  state_.resize(nparams);
  for (const auto& [name, t] : items) {
    if (name.rfind(kGroup, 0) == 0 && hypers.count(name.substr(std::strlen(kGroup)))) {
      hyper_[name.substr(std::strlen(kGroup))] = t;
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
        state_[i][rest.substr(dot + 1)] = t;
        continue;
      }
    }
    fail(TC_ERR_INVALID_ARGUMENT, str("\"", name, "\" is not a name of a ", kind, " optimizer's state"));
  }
  for (const std::string& h : hypers)
    TC_CHECK(hyper_.count(h), TC_ERR_INVALID_ARGUMENT, "the dict has no \"", kGroup, h,
             "\" (is it the state of a ", kind, " optimizer?)");
}

double StateItems::value(const std::string& h) const {
  const Tensor& t = hyper_.at(h);
  TC_CHECK(t->numel() == 1, TC_ERR_SHAPE, "\"", kGroup, h, "\" must have one element but has shape ",
           t->shape);
  return read_element(to_device(t, kCPU), 0);
}

bool StateItems::flag(const std::string& h) const {
  const double v = value(h);
  TC_CHECK(v == 0 || v == 1, TC_ERR_INVALID_ARGUMENT, "\"", kGroup, h, "\" must be 0 or 1 but is ", v);
  return v != 0;
}

LoadedState StateItems::read(const std::vector<Tensor>& params, const std::vector<Slot>& slots,
                             std::optional<int64_t> min_step) const {
  const size_t np = params.size();
  LoadedState out;
  out.slots.assign(slots.size(), std::vector<Tensor>(np));
  out.steps.assign(np, 0);
  for (size_t i = 0; i < np; ++i) {
    const Tensor& p = params[i];
    const auto& st = state_[i];
    if (st.empty()) {  // as a fresh optimizer's
      for (size_t k = 0; k < slots.size(); ++k)
        if (slots[k].initial) out.slots[k][i] = full(p->shape, *slots[k].initial, p->dtype, p->device);
      continue;
    }
    std::vector<const char*> need;
    if (min_step) need.push_back("step");
    for (const Slot& s : slots)
      if (s.used) need.push_back(s.name);
    for (const char* f : need)
      TC_CHECK(st.count(f), TC_ERR_INVALID_ARGUMENT, "the state of parameter ", i, " has no \"",
               state_name(i, f), "\" (a partial state)");
    if (min_step) out.steps[i] = step_value(st.at("step"), state_name(i, "step"), *min_step);
    for (size_t k = 0; k < slots.size(); ++k)
      if (slots[k].used) out.slots[k][i] = state_like(p, st.at(slots[k].name), state_name(i, slots[k].name));
  }
  return out;
}

}  // namespace tc::optim
