// The autograd graph, kept as small as micrograd's: an op that sees an input
// requiring grad (with grad mode on) makes a Node that remembers what it needs
// (SavedTensor) and the edges to its inputs' nodes; the engine (engine.cpp)
// walks nodes from the root in dependency order and calls apply().
#pragma once
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "core/object_pool.h"
#include "core/tensor.h"

namespace tc::autograd {

struct Node;
struct HookList;

// The tensors an op hands to record()/record_function(): a std::vector's or a
// braced list's, read only during the call (a braced list's elements live
// until the end of the call's full expression), so a parameter of this type
// costs no allocation where a `const std::vector<Tensor>&` made a vector per
// braced list per recorded op. Never keep one beyond the call.
class TensorList {
 public:
  TensorList() = default;
  TensorList(const std::vector<Tensor>& v) : data_(v.data()), size_(v.size()) {}
// GCC warns that keeping a braced list's begin() does not extend its life:
// exactly the contract above (the list outlives the call that reads it).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  TensorList(std::initializer_list<Tensor> l) : data_(l.begin()), size_(l.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Tensor& operator[](size_t i) const { return data_[i]; }
  const Tensor* begin() const { return data_; }
  const Tensor* end() const { return data_ + size_; }

 private:
  const Tensor* data_ = nullptr;
  size_t size_ = 0;
};

// Where a gradient goes: input_nr-th output of node (null node = nowhere).
struct Edge {
  std::shared_ptr<Node> node;
  uint32_t input_nr = 0;
};

struct PackedTensor;  // saved_hooks.h

// How many saved-tensor hook pairs the calling thread has pushed
// (saved_hooks.h): a SavedTensor reads it once, so saving costs one
// thread-local read when no hooks are active.
inline uint32_t& saved_tensor_hooks_depth() noexcept {
  static thread_local uint32_t depth = 0;
  return depth;
}

// A tensor saved for backward, with the version it had then, so that an
// in-place change made afterwards is caught (TC_ERR_AUTOGRAD) at unpack.
// While saved-tensor hooks are active (saved_hooks.h) the tensor goes through
// the top pair's pack at once and only its token is kept; unpack then asks
// the pair for the tensor back (no version check then, as PyTorch: the
// hooks own what they keep).
class SavedTensor {
 public:
  SavedTensor() = default;
  explicit SavedTensor(const Tensor& t)
      : tensor_(t),
        version_(t ? t->version() : 0),
        generation_(t ? t->data_generation : 0),
        defined_(t != nullptr) {
    if (t && saved_tensor_hooks_depth() != 0) pack();
  }
  // The saved tensor; throws TC_ERR_AUTOGRAD naming `node` when it was freed
  // (backward ran without retain_graph) or modified in place.
  Tensor unpack(const char* node) const;
  void release() {
    tensor_.reset();
    packed_.reset();  // the hooks' free runs here
    released_ = true;
  }

 private:
  void pack();  // saved_hooks.cpp: tensor_ -> packed_

  Tensor tensor_;
  std::shared_ptr<PackedTensor> packed_;  // set when hooks packed the tensor
  int64_t version_ = 0;
  uint32_t generation_ = 0;  // the tensor's data_generation when saved
  bool defined_ = false;
  bool released_ = false;
};

// A vector that keeps its first element inline: most nodes have one output,
// and a std::vector per output field cost three allocations per recorded op.
// Just what Node's output fields need of std::vector's interface.
template <typename T>
class OneOrMore {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](size_t i) const { return size_ <= 1 ? one_ : many_[i]; }
  T& operator[](size_t i) { return size_ <= 1 ? one_ : many_[i]; }
  void clear() {
    many_.clear();
    size_ = 0;
  }
  void push_back(const T& v) {
    if (size_ == 0) {
      one_ = v;
    } else {
      if (size_ == 1) many_.assign(1, one_);
      many_.push_back(v);
    }
    ++size_;
  }

 private:
  T one_{};
  std::vector<T> many_;  // every element once there are two or more
  size_t size_ = 0;
};

struct Node {
  virtual ~Node() = default;
  // "MulBackward": reported by tc_tensor_grad_fn_name and in errors.
  virtual const char* name() const = 0;
  // Given the gradient of each output (null Tensor = zero), returns the
  // gradient for each input, in the order of `next` (null = none).
  virtual std::vector<Tensor> apply(const std::vector<Tensor>& grad_outputs) = 0;
  // apply() for a caller done with grad_outputs (the engine): a node may take
  // the tensors out (AccumulateGrad keeps an unshared gradient as the leaf's
  // .grad instead of copying it, as PyTorch does).
  virtual std::vector<Tensor> apply_owned(std::vector<Tensor>& grad_outputs) { return apply(grad_outputs); }
  // Frees saved tensors (after a backward without retain_graph).
  virtual void release_saved() {}
  // Whether release_saved() frees anything: a node without saved tensors may
  // be run again after a backward freed the graph, as in PyTorch.
  virtual bool has_saved() const { return false; }

  // One per input; from the per-thread block pool (object_pool.h), like the node.
  std::vector<Edge, PoolAllocator<Edge>> next;
  uint32_t num_outputs = 1;  // how many tensors the op produced
  // Shapes/dtypes of the outputs, so the engine can check and zero-fill.
  OneOrMore<Dims> output_shapes;
  OneOrMore<DType> output_dtypes;
  OneOrMore<Device> output_devices;
  // Gradient hooks of this node's outputs (non-leaf tensors' register_hook),
  // made on first registration under the hooks' lock (hooks.h); null when none.
  std::shared_ptr<HookList> output_hooks;

  // Backward bookkeeping, guarded by the engine's graph mutex (engine.cpp):
  // how many backward passes hold this node now, whether one of them will
  // free its saved tensors (a pass without retain_graph), and whether they
  // were freed. They make concurrent passes over one graph well defined.
  int32_t holders = 0;
  bool claimed = false;
  bool released = false;
};

// True when grad mode is on and any of the tensors requires grad.
bool needs_grad(std::initializer_list<const Tensor*> inputs);
bool needs_grad(TensorList inputs);
// Connects node to its inputs (edges: the inputs' grad_fn, or an
// AccumulateGrad for leaves requiring grad) and makes it the grad_fn of every
// output (requires_grad = true, output_nr = i).
void record(const std::shared_ptr<Node>& node, TensorList inputs, TensorList outputs);
// Runs backward from root; grad may be null for a one-element root.
void backward(const Tensor& root, const Tensor& grad, bool retain_graph);
// The gradient of a broadcast op's input: sums grad down to shape.
Tensor reduce_to_shape(const Tensor& grad, const Dims& shape);

}  // namespace tc::autograd
