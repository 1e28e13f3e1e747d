// Tensor hooks (Tensor.register_hook, register_post_accumulate_grad_hook)
// and custom functions' nodes, as C++ closures: the ABI layer wraps the
// caller's C callbacks in them (src/abi/functions.cpp), so the engine knows
// nothing of handles.
//
// A leaf's hooks live on its TensorImpl, a non-leaf's on its grad_fn (by
// output index), both made on first registration. One mutex guards every
// list; hooks run outside it (the engine copies the list first), so a hook
// may register or remove hooks, and a removed hook's closure (and with it
// the caller's context) dies only once no call of it is running.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autograd/node.h"

namespace tc::autograd {

// Returns a replacement gradient, or null to keep grad.
using GradHookFn = std::function<Tensor(const Tensor& grad)>;
using PostAccumulateHookFn = std::function<void(const Tensor& leaf)>;

struct Hook {
  uint64_t id = 0;
  uint32_t output_nr = 0;  // a non-leaf's output of its grad_fn
  GradHookFn grad;         // one of the two is set
  PostAccumulateHookFn post;
};

struct HookList {
  std::vector<std::shared_ptr<Hook>> hooks;
};

// What a tc_hook handle holds: where the hook is, weakly (the tensor owns it).
struct HookRegistration {
  std::weak_ptr<HookList> list;
  uint64_t id = 0;
};

// t must require grad (post-accumulate hooks: a leaf). Throws on misuse.
std::shared_ptr<HookRegistration> register_grad_hook(const Tensor& t, GradHookFn fn);
std::shared_ptr<HookRegistration> register_post_accumulate_hook(const Tensor& t, PostAccumulateHookFn fn);
// Removes the hook if it is still registered (its tensor may be gone).
void remove_hook(const HookRegistration& r);

// The engine: runs the grad hooks of node's outputs on grads (one per output).
void run_output_hooks(const Node& node, std::vector<Tensor>& grads);
// The engine: leaf.grad += grad, after the leaf's grad hooks, then its
// post-accumulate hooks.
void accumulate_leaf(const Tensor& leaf, Tensor grad);

// A custom function's backward: the input gradients (null: none) from the
// saved tensors, the output gradients (zeros where none flowed) and which
// inputs need one.
using CustomBackwardFn = std::function<std::vector<Tensor>(const std::vector<Tensor>& saved,
                                                           const std::vector<Tensor>& grad_outputs,
                                                           const std::vector<bool>& needs)>;

struct CustomFunctionNode : Node {
  CustomFunctionNode(std::string name, std::vector<SavedTensor> saved, CustomBackwardFn fn)
      : name_(std::move(name)), saved_(std::move(saved)), fn_(std::move(fn)) {}
  const char* name() const override { return name_.c_str(); }
  std::vector<Tensor> apply(const std::vector<Tensor>& grad_outputs) override;
  void release_saved() override {
    for (SavedTensor& s : saved_) s.release();
  }
  bool has_saved() const override { return !saved_.empty(); }

  // For each saved tensor, the output it is (-1: not an output). Under
  // create_graph a saved output is read with its graph (output_with_graph),
  // as PyTorch's saved outputs are, so that a backward written with recorded
  // ops is differentiable through it too.
  std::vector<int32_t> saved_output_nr;

 private:
  std::string name_;
  std::vector<SavedTensor> saved_;
  CustomBackwardFn fn_;
};

}  // namespace tc::autograd
