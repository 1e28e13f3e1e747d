#include "autograd/hooks.h"

#include <atomic>
#include <mutex>

#include "autograd/engine.h"
#include "autograd/function.h"
#include "core/init.h"

namespace tc::autograd {

namespace {

std::mutex g_hooks_mu;
std::atomic<uint64_t> g_next_id{1};
// Registrations ever made: the engine skips the lock while there are none.
std::atomic<bool> g_any_hooks{false};

std::shared_ptr<HookRegistration> add(std::shared_ptr<HookList>& slot, std::shared_ptr<Hook> hook) {
  auto reg = std::make_shared<HookRegistration>();
  reg->id = hook->id;
  std::lock_guard<std::mutex> g(g_hooks_mu);
  if (!slot) slot = std::make_shared<HookList>();
  slot->hooks.push_back(std::move(hook));
  reg->list = slot;
  g_any_hooks.store(true);
  return reg;
}

std::vector<std::shared_ptr<Hook>> snapshot(const std::shared_ptr<HookList>& slot) {
  if (!g_any_hooks.load()) return {};
  std::lock_guard<std::mutex> g(g_hooks_mu);
  return slot ? slot->hooks : std::vector<std::shared_ptr<Hook>>{};
}

Tensor checked_replacement(const Tensor& r, const Tensor& grad) {
  TC_CHECK(r->shape == grad->shape && r->dtype == grad->dtype && r->device == grad->device, TC_ERR_AUTOGRAD,
           "a gradient hook returned a ", dtype_name(r->dtype), " tensor of shape ", r->shape, " on ",
           device_name(r->device), " for a ", dtype_name(grad->dtype), " gradient of shape ", grad->shape,
           " on ", device_name(grad->device));
  return r;
}

}  // namespace

std::shared_ptr<HookRegistration> register_grad_hook(const Tensor& t, GradHookFn fn) {
  TC_CHECK(t->requires_grad, TC_ERR_AUTOGRAD,
           "cannot register a hook on a tensor that does not require grad");
  auto hook = std::make_shared<Hook>();
  hook->id = g_next_id.fetch_add(1);
  hook->grad = std::move(fn);
  if (t->is_leaf()) return add(t->hooks, std::move(hook));
  hook->output_nr = t->output_nr;
  return add(t->grad_fn->output_hooks, std::move(hook));
}

std::shared_ptr<HookRegistration> register_post_accumulate_hook(const Tensor& t, PostAccumulateHookFn fn) {
  TC_CHECK(t->is_leaf(), TC_ERR_AUTOGRAD,
           "post-accumulate-grad hooks can only be registered on leaf tensors (t was made by ",
           t->grad_fn->name(), ")");
  TC_CHECK(t->requires_grad, TC_ERR_AUTOGRAD,
           "cannot register a post-accumulate-grad hook on a tensor that does not require grad");
  auto hook = std::make_shared<Hook>();
  hook->id = g_next_id.fetch_add(1);
  hook->post = std::move(fn);
  return add(t->hooks, std::move(hook));
}

void remove_hook(const HookRegistration& r) {
  std::shared_ptr<HookList> list = r.list.lock();
  if (!list) return;
  std::shared_ptr<Hook> dying;  // destroyed after the lock is released: it may run a release callback
  {
    std::lock_guard<std::mutex> g(g_hooks_mu);
    for (auto it = list->hooks.begin(); it != list->hooks.end(); ++it) {
      if ((*it)->id == r.id) {
        dying = std::move(*it);
        list->hooks.erase(it);
        break;
      }
    }
  }
}

void run_output_hooks(const Node& node, std::vector<Tensor>& grads) {
  if (!g_any_hooks.load()) return;
  for (const std::shared_ptr<Hook>& h : snapshot(node.output_hooks)) {
    if (!h->grad || h->output_nr >= grads.size() || !grads[h->output_nr]) continue;
    Tensor& g = grads[h->output_nr];
    if (Tensor r = h->grad(g)) g = checked_replacement(r, g);
  }
}

void accumulate_leaf(const Tensor& leaf, Tensor grad) {
  // A graph recorded before the leaf's data was replaced (set_data) carries
  // a gradient of the old shape or device: adding it would mix two layouts.
  TC_CHECK(grad->shape == leaf->shape && grad->device == leaf->device, TC_ERR_AUTOGRAD,
           "the gradient reaching a leaf of shape ", leaf->shape, " on ", device_name(leaf->device),
           " has shape ", grad->shape, " on ", device_name(grad->device),
           " (the leaf's data was replaced after the graph was recorded: set_data, `.data =`, Module.to)");
  if (grad->dtype != leaf->dtype) grad = cast(grad, leaf->dtype);
  const std::vector<std::shared_ptr<Hook>> hooks = snapshot(leaf->hooks);
  for (const std::shared_ptr<Hook>& h : hooks) {
    if (!h->grad) continue;
    if (Tensor r = h->grad(grad)) grad = checked_replacement(r, grad);
  }
  accumulate_grad(leaf, std::move(grad));  // ours: a copy only when others hold it
  for (const std::shared_ptr<Hook>& h : hooks)
    if (h->post) h->post(leaf);
}

std::vector<Tensor> CustomFunctionNode::apply(const std::vector<Tensor>& grad_outputs) {
  std::vector<Tensor> saved;
  saved.reserve(saved_.size());
  for (const SavedTensor& s : saved_) saved.push_back(s.unpack(name_.c_str()));
  // Under create_graph (grad mode on) the backward's own ops are recorded, as
  // in PyTorch; the saved outputs then carry this node's graph.
  if (grad_enabled())
    for (size_t k = 0; k < saved.size() && k < saved_output_nr.size(); ++k)
      if (saved_output_nr[k] >= 0) saved[k] = output_with_graph(saved[k], uint32_t(saved_output_nr[k]));
  std::vector<Tensor> grads(num_outputs);
  for (uint32_t i = 0; i < num_outputs; ++i) {
    grads[i] = i < grad_outputs.size() && grad_outputs[i]
                   ? grad_outputs[i]
                   : zeros(output_shapes[i], output_dtypes[i], output_devices[i]);
  }
  std::vector<bool> needs(next.size());
  for (size_t i = 0; i < next.size(); ++i) needs[i] = next[i].node != nullptr;
  std::vector<Tensor> out = fn_(saved, grads, needs);
  out.resize(next.size());
  for (size_t i = 0; i < next.size(); ++i)
    if (!needs[i]) out[i] = nullptr;
  return out;
}

}  // namespace tc::autograd
