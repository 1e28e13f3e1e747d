// The backward engine: count, for every node reachable from the root, how many
// edges lead into it; run a node once all of them have delivered their
// gradient (summing those that meet); hand its input gradients on.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>

#include "autograd/function.h"
#include "autograd/hooks.h"
#include "backend/backend.h"
#include "core/init.h"
#include "core/object_pool.h"
#include "math/op_enums.h"
#include "ops/ops.h"

namespace tc::autograd {

Tensor SavedTensor::unpack(const char* node) const {
  TC_CHECK(!released_, TC_ERR_AUTOGRAD, "Trying to backward through the graph a second time (", node,
           "'s saved tensors were freed); pass retain_graph=1 to the first backward");
  if (!defined_) return nullptr;
  TC_CHECK(tensor_->data_generation == generation_, TC_ERR_AUTOGRAD, "a tensor ", node,
           " saved had its data replaced (set_data, `.data =`, Module.to) after it was saved; run the "
           "forward again");
  const int64_t now = tensor_->version();
  TC_CHECK(now == version_, TC_ERR_AUTOGRAD, "a tensor ", node, " saved was modified in place: version ", now,
           ", expected ", version_, " (an in-place op changed it after it was used; clone it first)");
  return tensor_;
}

bool needs_grad(std::initializer_list<const Tensor*> inputs) {
  if (!grad_enabled()) return false;
  for (const Tensor* t : inputs) {
    if (t && *t && (*t)->requires_grad) return true;
  }
  return false;
}

bool needs_grad(TensorList inputs) {
  if (!grad_enabled()) return false;
  for (const Tensor& t : inputs) {
    if (t && t->requires_grad) return true;
  }
  return false;
}

namespace {

// Where a leaf's gradient ends up.
struct AccumulateGrad : Node {
  explicit AccumulateGrad(Tensor leaf) : leaf_(std::move(leaf)) {
    output_shapes.push_back(leaf_->shape);
    output_dtypes.push_back(leaf_->dtype);
    output_devices.push_back(leaf_->device);
  }
  const char* name() const override { return "AccumulateGrad"; }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    if (grads[0]) accumulate_leaf(leaf_, grads[0]);
    return {};
  }
  std::vector<Tensor> apply_owned(std::vector<Tensor>& grads) override {
    if (grads[0]) accumulate_leaf(leaf_, std::move(grads[0]));
    return {};
  }
  Tensor leaf_;
};

// Non-leaf tensors that asked to keep their grad, found by their grad_fn. Weak
// references: the registry keeps nothing alive; expired entries are dropped.
struct Retained {
  std::weak_ptr<Node> node;
  std::weak_ptr<TensorImpl> tensor;
};
std::mutex g_retained_mu;
std::vector<Retained> g_retained;
std::atomic<size_t> g_retained_count{0};

void deliver_retained(const Node* node, const std::vector<Tensor>& grads) {
  if (g_retained_count.load(std::memory_order_relaxed) == 0) return;
  std::vector<std::pair<Tensor, Tensor>> todo;
  // Every tensor locked here dies outside g_retained_mu: its last reference
  // may be ours, and its storage's deleter (user code) may call back into
  // libtc (tc_tensor_retain_grad takes this mutex).
  std::vector<Tensor> seen;
  {
    std::lock_guard<std::mutex> g(g_retained_mu);
    auto dead = [](const Retained& r) { return r.node.expired() || r.tensor.expired(); };
    g_retained.erase(std::remove_if(g_retained.begin(), g_retained.end(), dead), g_retained.end());
    g_retained_count.store(g_retained.size());
    for (const Retained& r : g_retained) {
      Tensor t = r.tensor.lock();
      if (t) seen.push_back(t);
      if (t && t->grad_fn.get() == node && t->output_nr < grads.size() && grads[t->output_nr]) {
        todo.emplace_back(t, grads[t->output_nr]);
      }
    }
  }
  for (auto& [t, g] : todo) accumulate_grad(t, g);
}

void check_grad(const Tensor& g, const Node& producer, const Node& consumer, uint32_t input_nr,
                uint32_t output_nr) {
  if (output_nr < consumer.output_shapes.size()) {
    TC_CHECK(g->shape == consumer.output_shapes[output_nr], TC_ERR_AUTOGRAD, "backward: ", producer.name(),
             " returned a gradient of shape ", g->shape, " for its input ", input_nr,
             ", but that input (output ", output_nr, " of ", consumer.name(), ") has shape ",
             consumer.output_shapes[output_nr]);
  }
  if (output_nr < consumer.output_dtypes.size()) {
    TC_CHECK(g->dtype == consumer.output_dtypes[output_nr], TC_ERR_AUTOGRAD, "backward: ", producer.name(),
             " returned a ", dtype_name(g->dtype), " gradient for its input ", input_nr,
             ", but that input (output ", output_nr, " of ", consumer.name(), ") is ",
             dtype_name(consumer.output_dtypes[output_nr]));
  }
}

// Concurrent backward passes over one graph. Every pass takes the nodes it
// will run whose saved tensors matter (has_saved) before running any: a pass
// without retain_graph claims them (it will free their saved tensors), any
// pass holds them. A node already freed, or claimed by another pass, or held
// by another pass when this one would free it, fails the pass before it
// touches anything: of two passes without retain_graph over one graph exactly
// one succeeds, and no gradient is accumulated twice or half.
std::mutex g_graph_mu;

class GraphClaim {
 public:
  GraphClaim(const std::vector<Node*>& nodes, bool retain_graph) : retain_(retain_graph) {
    std::lock_guard<std::mutex> lock(g_graph_mu);
    for (Node* n : nodes) {
      if (!n->has_saved()) continue;
      TC_CHECK(!n->released, TC_ERR_AUTOGRAD, "Trying to backward through the graph a second time (",
               n->name(), "'s saved tensors were freed); pass retain_graph=1 to the first backward");
      TC_CHECK(!n->claimed, TC_ERR_AUTOGRAD,
               "Trying to backward through the graph a second time: a backward ",
               "without retain_graph is running through it on another thread and frees ", n->name(),
               "'s saved tensors; pass retain_graph=1 to all but the last backward");
      TC_CHECK(retain_ || n->holders == 0, TC_ERR_AUTOGRAD,
               "backward without retain_graph: another backward ",
               "is running through this graph on another thread and uses ", n->name(),
               "'s saved tensors, which this one would free; run the last backward after the others finish");
    }
    held_.reserve(nodes.size());
    for (Node* n : nodes) {
      if (!n->has_saved()) continue;
      ++n->holders;
      if (!retain_) n->claimed = true;
      held_.push_back(n);
    }
  }
  // Frees n's saved tensors (a pass without retain_graph, after running n).
  void release(Node* n) {
    if (retain_ || !n->has_saved()) return;
    n->release_saved();
    std::lock_guard<std::mutex> lock(g_graph_mu);
    n->released = true;
  }
  ~GraphClaim() {
    std::lock_guard<std::mutex> lock(g_graph_mu);
    for (Node* n : held_) {
      --n->holders;
      if (!retain_) n->claimed = false;
    }
  }
  GraphClaim(const GraphClaim&) = delete;
  GraphClaim& operator=(const GraphClaim&) = delete;

 private:
  bool retain_;
  std::vector<Node*> held_;
};

// One backward pass's nodes, in discovery order (the root's first), with
// their pending gradients. Most graphs a step builds have a handful of nodes:
// up to kLinear they are found by a linear scan, beyond that through a hash
// map built once, instead of a hash map node allocated per graph node. The
// vectors are this thread's, kept from pass to pass with their capacity (the
// per-node gradient vectors too), so that a steady training loop's backward
// allocates none of them; a backward started inside another on the same
// thread (from a hook) gets fresh ones.
struct PassInfo {
  int64_t deps = 0;
  std::vector<Tensor> grads;
};
struct PassScratch {
  std::vector<Node*> nodes;
  std::vector<PassInfo> infos;  // the first nodes.size() are this pass's
  std::unordered_map<Node*, size_t> index;
  std::vector<Node*> stack;
  bool busy = false;
};
thread_local PassScratch t_pass_scratch;

class PassNodes {
 public:
  using Info = PassInfo;
  PassNodes() : own_(t_pass_scratch.busy ? std::make_unique<PassScratch>() : nullptr) {
    s_ = own_ ? own_.get() : &t_pass_scratch;
    s_->busy = true;
  }
  // Leaves only empty vectors behind (their room kept): no tensor outlives
  // the pass in the scratch, even when it failed half way.
  ~PassNodes() {
    if (s_->infos.size() > kLinear) {  // a big graph's room (and its hash map) is not kept per thread
      *s_ = PassScratch{};
      return;
    }
    for (size_t i = 0; i < s_->nodes.size(); ++i) {
      s_->infos[i].grads.clear();
      s_->infos[i].deps = 0;
    }
    s_->nodes.clear();
    s_->stack.clear();
    s_->busy = false;
  }
  PassNodes(const PassNodes&) = delete;
  PassNodes& operator=(const PassNodes&) = delete;

  // n's index, adding it (fresh) when this pass has not seen it.
  std::pair<size_t, bool> find_or_add(Node* n) {
    std::vector<Node*>& nodes = s_->nodes;
    if (s_->index.empty()) {
      for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i] == n) return {i, false};
      if (nodes.size() == kLinear) {
        for (size_t i = 0; i < nodes.size(); ++i) s_->index.emplace(nodes[i], i);
      }
    }
    if (!s_->index.empty()) {
      auto [it, fresh] = s_->index.try_emplace(n, nodes.size());
      if (!fresh) return {it->second, false};
    }
    if (s_->infos.size() == nodes.size()) s_->infos.emplace_back();
    nodes.push_back(n);  // after the infos: a throw leaves both consistent
    return {nodes.size() - 1, true};
  }
  // The index of a node find_or_add has seen.
  size_t index_of(Node* n) const {
    if (!s_->index.empty()) return s_->index.at(n);
    for (size_t i = 0; i < s_->nodes.size(); ++i)
      if (s_->nodes[i] == n) return i;
    fail(TC_ERR_INTERNAL, "backward: a node outside the pass's graph");
  }
  Info& info(size_t i) { return s_->infos[i]; }
  const std::vector<Node*>& nodes() const { return s_->nodes; }
  // A stack for the walks, empty at the start of each.
  std::vector<Node*>& stack() { return s_->stack; }

 private:
  static constexpr size_t kLinear = 32;
  std::unique_ptr<PassScratch> own_;
  PassScratch* s_;
};

}  // namespace

void retain_grad(const Tensor& t) {
  if (t->is_leaf()) return;                    // leaves that require grad keep theirs anyway
  if (t->retains_grad.exchange(true)) return;  // one registration, also when threads race here
  std::lock_guard<std::mutex> g(g_retained_mu);
  g_retained.push_back({t->grad_fn, t});
  g_retained_count.store(g_retained.size());
}

namespace {
// The .grad a gradient is added into must have its layout: a .grad whose
// data was replaced (set_data on the handle tc_tensor_grad gave) may not.
void check_accumulable(const Tensor& t, const Tensor& acc, const Tensor& g) {
  TC_CHECK(acc->shape == g->shape && acc->dtype == g->dtype && acc->device == g->device, TC_ERR_AUTOGRAD,
           "the .grad of a tensor of shape ", t->shape, " is a ", dtype_name(acc->dtype), " tensor of shape ",
           acc->shape, " on ", device_name(acc->device), ": a gradient (", dtype_name(g->dtype), ", shape ",
           g->shape, ") cannot be added to it (its data was replaced); clear or reassign .grad");
}
}  // namespace

// acc += g (acc: a .grad of its own); a complex one as its real pairs view.
static void add_in_place(const Tensor& acc, const Tensor& g) {
  if (is_complex(acc->dtype)) {
    const Tensor pairs = complex_pairs_view(acc);
    backend_for(acc).binary(ops::BinaryOp::add, pairs, pairs, complex_pairs_view(g));
  } else {
    backend_for(acc).binary(ops::BinaryOp::add, acc, acc, g);
  }
}

void accumulate_grad(const Tensor& t, const Tensor& g) {
  // Under t's grad lock: another thread may clear, read or accumulate into
  // t's grad at the same time (concurrent backwards, zero_grad).
  t->update_grad([&](Tensor& acc) {
    if (!acc) {
      acc = clone_data(g);  // own storage: g may be a broadcast view or another node's buffer
      return;
    }
    check_accumulable(t, acc, g);
    add_in_place(acc, g);  // in place: acc is its own (a clone)
  });
}

bool steals_gradient(const Tensor& g) {
  // Ours alone: one reference (no other node's slot, hook, handle or saved
  // tensor holds it; only retained non-leaf tensors have weak references, and
  // g is none: no grad_fn, no retains_grad) and one owner of its buffer (no
  // view of it lives). Dense and exactly its buffer, so .grad is contiguous
  // and keeps no unrelated bytes alive.
  return g.use_count() == 1 && g->storage && g->storage.use_count() == 1 && !g->grad_fn &&
         !g->requires_grad.load() && !g->retains_grad.load() && !g->hooks && g->offset == 0 &&
         g->is_contiguous() && g->storage->nbytes == g->numel() * g->itemsize() &&
         !g->storage->read_only.load();
}

void accumulate_grad(const Tensor& t, Tensor&& g) {
  if (!steals_gradient(g)) return accumulate_grad(t, static_cast<const Tensor&>(g));
  t->update_grad([&](Tensor& acc) {
    if (!acc) {
      acc = std::move(g);  // nobody else can see it: no copy (PyTorch's AccumulateGrad does the same)
      return;
    }
    check_accumulable(t, acc, g);
    add_in_place(acc, g);
  });
}

// The leaf's AccumulateGrad node: the one a live graph already uses, else a
// new one (cached weakly on the leaf), as PyTorch's grad_accumulator(). Every
// forward used to make (and backward free) a node with four allocations per
// leaf; sharing one is safe: it has no saved tensors, no per-pass state, and
// accumulates under the leaf's grad lock.
static std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
  return leaf->with_grad_accumulator([&](std::weak_ptr<Node>& cached) {
    std::shared_ptr<Node> n = cached.lock();
    if (!n) {
      n = std::allocate_shared<AccumulateGrad>(PoolAllocator<AccumulateGrad>(), leaf);
      cached = n;
    }
    return n;
  });
}

void record(const std::shared_ptr<Node>& node, TensorList inputs, TensorList outputs) {
  node->next.clear();
  node->next.reserve(inputs.size());
  for (const Tensor& in : inputs) {
    Edge e;
    if (in && in->requires_grad) {
      if (in->grad_fn) {
        e.node = in->grad_fn;
        e.input_nr = in->output_nr;
      } else {
        e.node = grad_accumulator(in);
      }
    }
    node->next.push_back(std::move(e));
  }
  node->num_outputs = uint32_t(outputs.size());
  node->output_shapes.clear();
  node->output_dtypes.clear();
  node->output_devices.clear();
  for (uint32_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    node->output_shapes.push_back(out->shape);
    node->output_dtypes.push_back(out->dtype);
    node->output_devices.push_back(out->device);
    out->requires_grad = true;
    out->grad_fn = node;
    out->output_nr = i;
  }
}

void backward(const Tensor& root, const Tensor& grad_in, bool retain_graph) {
  TC_CHECK(root->requires_grad, TC_ERR_AUTOGRAD, "backward: the root tensor (shape ", root->shape,
           ") does not require grad and has no grad_fn");
  Tensor grad = grad_in;
  if (!grad) {
    TC_CHECK(root->numel() == 1, TC_ERR_AUTOGRAD,
             "backward: grad can be implicitly created only for a one-element root, but the root has shape ",
             root->shape, "; pass a gradient of that shape");
    grad = ones(root->shape, root->dtype, root->device);
  } else {
    TC_CHECK(grad->shape == root->shape, TC_ERR_SHAPE, "backward: the gradient has shape ", grad->shape,
             " but the root has shape ", root->shape);
    TC_CHECK(grad->dtype == root->dtype, TC_ERR_DTYPE, "backward: the gradient is ", dtype_name(grad->dtype),
             " but the root is ", dtype_name(root->dtype));
    TC_CHECK(grad->device == root->device, TC_ERR_DEVICE, "backward: the gradient is on ",
             device_name(grad->device), " but the root is on ", device_name(root->device));
  }
  NoGradGuard no_grad;
  if (root->is_leaf()) {
    accumulate_leaf(root, grad);
    return;
  }

  // Dependency counts: one per edge into a node from a node of this graph.
  // (Edges are fixed when a node is recorded, so other threads may walk the
  // same graph at the same time.)
  PassNodes pass;
  std::vector<Node*>& stack = pass.stack();
  stack.push_back(root->grad_fn.get());
  pass.find_or_add(root->grad_fn.get());
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next) {
      if (!e.node) continue;
      auto [i, fresh] = pass.find_or_add(e.node.get());
      ++pass.info(i).deps;
      if (fresh) stack.push_back(e.node.get());
    }
  }
  const std::vector<Node*>& nodes = pass.nodes();
  GraphClaim claim(nodes, retain_graph);

  Node* first = root->grad_fn.get();
  pass.info(0).grads.resize(first->num_outputs);
  pass.info(0).grads[root->output_nr] = grad;
  std::vector<Node*>& ready = stack;  // empty now: its room is reused
  ready.push_back(first);
  while (!ready.empty()) {
    Node* n = ready.back();
    ready.pop_back();
    PassNodes::Info& in = pass.info(pass.index_of(n));
    in.grads.resize(n->num_outputs);
    run_output_hooks(*n, in.grads);  // before .grad is retained, as PyTorch
    deliver_retained(n, in.grads);
    const bool any =
        std::any_of(in.grads.begin(), in.grads.end(), [](const Tensor& t) { return t != nullptr; });
    std::vector<Tensor> out;
    if (any) {
      out = n->apply_owned(in.grads);  // in.grads is cleared below: the node may take them
      TC_CHECK(out.size() == n->next.size() || n->next.empty(), TC_ERR_INTERNAL, "backward: ", n->name(),
               " returned ", out.size(), " gradients for ", n->next.size(), " inputs");
    }
    claim.release(n);
    in.grads.clear();
    for (size_t i = 0; i < n->next.size(); ++i) {
      const Edge& e = n->next[i];
      if (!e.node) continue;
      PassNodes::Info& child = pass.info(pass.index_of(e.node.get()));
      const Tensor g = i < out.size() ? out[i] : nullptr;
      if (g) {
        check_grad(g, *n, *e.node, uint32_t(i), e.input_nr);
        if (child.grads.size() < e.node->num_outputs) child.grads.resize(e.node->num_outputs);
        Tensor& slot = child.grads[e.input_nr];
        slot = slot ? ops::add(slot, g) : g;
      }
      if (--child.deps == 0) ready.push_back(e.node.get());
    }
  }
}

Tensor reduce_to_shape(const Tensor& grad, const Dims& shape) { return ops::sum_to_size(grad, shape); }

}  // namespace tc::autograd
