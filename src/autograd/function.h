// Helpers for writing backward nodes in a few lines: a FunctionNode holds the
// tensors it saved (checked for in-place changes and freed after backward) and
// a lambda computing the input gradients from the output gradients. Lambdas
// must capture no Tensor (only shapes, dtypes, numbers): tensors go in `saved`,
// so that release_saved() really frees them and no reference cycle can form.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autograd/node.h"

namespace tc::autograd {

using Grads = std::vector<Tensor>;
using BackwardFn = std::function<Grads(const Grads& grad_outputs, const std::vector<Tensor>& saved)>;

struct FunctionNode : Node {
  FunctionNode(const char* name, std::vector<SavedTensor> saved, BackwardFn fn)
      : name_(name), saved_(std::move(saved)), fn_(std::move(fn)) {}
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
  std::vector<SavedTensor> saved_;
  BackwardFn fn_;
};

// Records `name` as the grad_fn of outputs when any input needs grad; saved may
// hold null tensors. Returns whether it recorded.
inline bool record_function(const char* name, const std::vector<Tensor>& inputs,
                            const std::vector<Tensor>& outputs, std::vector<Tensor> saved, BackwardFn fn) {
  if (!needs_grad(inputs)) return false;
  std::vector<SavedTensor> s;
  s.reserve(saved.size());
  for (const Tensor& t : saved) s.emplace_back(t);
  record(std::make_shared<FunctionNode>(name, std::move(s), std::move(fn)), inputs, outputs);
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
