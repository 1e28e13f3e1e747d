// Saved-tensor hooks: the per-thread stack, packing a SavedTensor's tensor
// and unpacking it for backward (saved_hooks.h).
#include "autograd/saved_hooks.h"

#include <utility>
#include <vector>

#include "core/error.h"
#include "core/init.h"

namespace tc::autograd {

namespace {

// The calling thread's pairs, innermost last. saved_tensor_hooks_depth()
// mirrors its size, for the inline check every SavedTensor makes.
std::vector<std::shared_ptr<SavedTensorHooks>>& hook_stack() {
  static thread_local std::vector<std::shared_ptr<SavedTensorHooks>> stack;
  return stack;
}

}  // namespace

void push_saved_tensor_hooks(std::shared_ptr<SavedTensorHooks> hooks) {
  TC_CHECK(hooks != nullptr, TC_ERR_INVALID_ARGUMENT, "saved-tensor hooks must not be null");
  auto& stack = hook_stack();
  stack.push_back(std::move(hooks));
  saved_tensor_hooks_depth() = uint32_t(stack.size());
}

void pop_saved_tensor_hooks() {
  auto& stack = hook_stack();
  TC_CHECK(!stack.empty(), TC_ERR_INVALID_ARGUMENT,
           "no saved-tensor hooks to pop: this thread's stack is empty (a pop without its push)");
  // Taken off the stack first: dropping the pair may run the caller's
  // release, which may push or pop hooks itself.
  std::shared_ptr<SavedTensorHooks> top = std::move(stack.back());
  stack.pop_back();
  saved_tensor_hooks_depth() = uint32_t(stack.size());
  top.reset();
}

size_t saved_tensor_hooks_depth_now() { return hook_stack().size(); }

void SavedTensor::pack() {
  auto& stack = hook_stack();
  if (stack.empty()) return;  // (the depth said otherwise: cannot happen)
  // Made before pack runs, so that a token is never left without its free.
  auto p = std::make_shared<PackedTensor>();
  p->hooks = stack.back();
  p->requires_grad = tensor_->requires_grad;
  if (tensor_->grad_fn) {
    p->grad_fn = tensor_->grad_fn;
    p->output_nr = tensor_->output_nr;
  } else if (p->requires_grad) {
    p->accumulator = shared_grad_accumulator(tensor_);
  }
  {
    // As PyTorch: the pack hook's own ops record nothing (and so save nothing).
    NoGradGuard no_grad;
    const int64_t version = tensor_->version();
    p->token = p->hooks->pack(tensor_);
    p->has_token = true;
    TC_CHECK(
        tensor_->version() == version, TC_ERR_AUTOGRAD,
        "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
        "can not be modified by in-place operations as this can lead to unexpected side-effects.");
  }
  packed_ = std::move(p);
  tensor_.reset();  // the hooks keep what they want of it
}

Tensor unpack_packed(const PackedTensor& p, const char* node) {
  const Tensor data = p.hooks->unpack(p.token, node);
  TC_CHECK(data != nullptr, TC_ERR_CALLBACK, "the unpack hook of a tensor ", node, " saved gave no tensor");
  // A tensor of its own over the data, standing where the saved tensor
  // stood in the graph (as PyTorch's SavedVariable::unpack makes one).
  Tensor t = make_view(data, data->shape, data->strides, data->offset);
  t->requires_grad = p.requires_grad;
  if (p.grad_fn) {
    t->grad_fn = p.grad_fn;
    t->output_nr = p.output_nr;
  } else if (p.accumulator) {
    t->with_grad_accumulator([&](std::weak_ptr<Node>& cached) { cached = p.accumulator; });
  }
  return t;
}

}  // namespace tc::autograd
