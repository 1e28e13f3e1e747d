// Saved-tensor hooks (PyTorch's torch.autograd.graph.saved_tensors_hooks):
// a per-thread stack of hook pairs; while one is on top, every SavedTensor
// made on that thread hands its tensor to the pair's pack and keeps only the
// token it returns (and the tensor's place in the graph), and backward gets
// the tensor back from unpack. The ABI layer adapts the caller's C callbacks
// to SavedTensorHooks (src/abi/saved_hooks.cpp), so autograd/ knows nothing
// of handles.
#pragma once
#include <cstdint>
#include <memory>

#include "autograd/node.h"

namespace tc::autograd {

// One pair of hooks, shared by the stack and every tensor packed with it.
struct SavedTensorHooks {
  virtual ~SavedTensorHooks() = default;
  // Called with grad mode off; returns the token standing for t. Throws on failure.
  virtual uint64_t pack(const Tensor& t) = 0;
  // The tensor behind token, never null (throws instead), for node's backward.
  virtual Tensor unpack(uint64_t token, const char* node) = 0;
  // Once per token pack gave, when nothing needs it any more.
  virtual void free(uint64_t token) noexcept = 0;
};

// What a SavedTensor keeps when hooks packed its tensor: the token, and the
// tensor's autograd identity, given back to the unpacked tensor so that a
// create_graph backward through it reaches the same graph (PyTorch's
// SavedVariable keeps grad_fn_ / grad_accumulator_ for the same reason).
struct PackedTensor {
  std::shared_ptr<SavedTensorHooks> hooks;
  uint64_t token = 0;
  bool has_token = false;  // pack succeeded: free the token on destruction
  bool requires_grad = false;
  std::shared_ptr<Node> grad_fn;  // a non-leaf's
  uint32_t output_nr = 0;
  // A leaf's AccumulateGrad, held strongly: the one record() shares (an
  // input's edge holds it too), so the unpacked tensor accumulates into the leaf.
  std::shared_ptr<Node> accumulator;

  PackedTensor() = default;
  ~PackedTensor() {
    if (has_token) hooks->free(token);
  }
  PackedTensor(const PackedTensor&) = delete;
  PackedTensor& operator=(const PackedTensor&) = delete;
};

// The calling thread's stack (hooks must not be null). pop throws
// TC_ERR_INVALID_ARGUMENT when the stack is empty.
void push_saved_tensor_hooks(std::shared_ptr<SavedTensorHooks> hooks);
void pop_saved_tensor_hooks();
size_t saved_tensor_hooks_depth_now();

// The unpacked tensor of p, for node's backward.
Tensor unpack_packed(const PackedTensor& p, const char* node);

// The leaf's AccumulateGrad node, shared as record() shares it (engine.cpp).
std::shared_ptr<Node> shared_grad_accumulator(const Tensor& leaf);

}  // namespace tc::autograd
