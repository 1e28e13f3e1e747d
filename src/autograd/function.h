// Helpers for writing backward nodes in a few lines: a FunctionNode holds the
// tensors it saved (checked for in-place changes and freed after backward) and
// a lambda computing the input gradients from the output gradients. Lambdas
// must capture no Tensor (only shapes, dtypes, numbers): tensors go in `saved`,
// so that release_saved() really frees them and no reference cycle can form.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "autograd/node.h"
#include "core/object_pool.h"

namespace tc::autograd {

using Grads = std::vector<Tensor>;
using BackwardFn = std::function<Grads(const Grads& grad_outputs, const std::vector<Tensor>& saved)>;

// The node keeps the op's lambda itself (F), not a std::function: a lambda
// capturing two shapes is too big for std::function's inline buffer, and
// that was one more allocation per recorded op. The node's block comes from
// the per-thread pool (object_pool.h), as tensors' do.
template <typename F>
struct FunctionNode final : Node {
  FunctionNode(const char* name, TensorList saved, F&& fn) : name_(name), fn_(std::move(fn)) {
    saved_.reserve(saved.size());
    for (const Tensor& t : saved) saved_.emplace_back(t);
  }
  const char* name() const override { return name_; }
  std::vector<Tensor> apply(const std::vector<Tensor>& grad_outputs) override {
    std::vector<Tensor> saved;
    saved.reserve(saved_.size());
    for (const SavedTensor& s : saved_) saved.push_back(s.unpack(name_));
    return fn_(grad_outputs, saved);
  }
  void release_saved() override {
    for (SavedTensor& s : saved_) s.release();
  }
  bool has_saved() const override { return !saved_.empty(); }

 private:
  const char* name_;  // a string literal
  std::vector<SavedTensor, PoolAllocator<SavedTensor>> saved_;
  F fn_;
};

// Records `name` as the grad_fn of outputs when any input needs grad; saved may
// hold null tensors. Returns whether it recorded. fn is called as
// fn(const Grads& grad_outputs, const std::vector<Tensor>& saved) -> Grads.
template <typename F>
bool record_function(const char* name, TensorList inputs, TensorList outputs, TensorList saved, F&& fn) {
  if (!needs_grad(inputs)) return false;
  using Fn = std::decay_t<F>;
  Fn f(std::forward<F>(fn));
  record(std::allocate_shared<FunctionNode<Fn>>(PoolAllocator<FunctionNode<Fn>>(), name, saved, std::move(f)),
         inputs, outputs);
  return true;
}

// A second TensorImpl over t's data, without autograd metadata: how a node saves
// its own output without the output owning the node that owns the output.
inline Tensor alias(const Tensor& t) { return make_view(t, t->shape, t->strides, t->offset); }

// Keeps .grad for a non-leaf tensor during backward (no-op for leaves).
void retain_grad(const Tensor& t);
// leaf.grad += g (creating it as a copy of g when absent).
void accumulate_grad(const Tensor& leaf, const Tensor& g);
// The same for a gradient the caller gives up: when nothing else holds it or
// its buffer (steals_gradient), the first one becomes .grad without a copy.
void accumulate_grad(const Tensor& leaf, Tensor&& g);
bool steals_gradient(const Tensor& g);

}  // namespace tc::autograd
