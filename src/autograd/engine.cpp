// The backward engine: count, for every node reachable from the root, how many
// edges lead into it; run a node once all of them have delivered their
// gradient (summing those that meet); hand its input gradients on.
#include "autograd/engine.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>

#include "autograd/anomaly.h"
#include "autograd/function.h"
#include "autograd/hooks.h"
#include "autograd/saved_hooks.h"
#include "backend/backend.h"
#include "core/init.h"
#include "core/object_pool.h"
#include "math/rows/binary_add.h"
#include "ops/ops.h"

namespace tc::autograd {

Tensor SavedTensor::unpack(const char* node) const {
  TC_CHECK(!released_, TC_ERR_AUTOGRAD, "Trying to backward through the graph a second time (", node,
           "'s saved tensors were freed); pass retain_graph=1 to the first backward");
  if (!defined_) return nullptr;
  if (packed_) return unpack_packed(*packed_, node);
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
  // The edge that owns the node (null for the pass's root): what a formula
  // run under create_graph gets as the grad_fn of its saved outputs.
  const std::shared_ptr<Node>* owner = nullptr;
  bool run = true;      // apply() it (false: pruned, it leads to no wanted gradient)
  bool target = false;  // a gradient is taken here (autograd.grad, backward(inputs=))
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
    PassInfo& fresh = s_->infos[nodes.size()];
    fresh.owner = nullptr;
    fresh.run = true;
    fresh.target = false;
    nodes.push_back(n);  // after the infos: a throw leaves both consistent
    return {nodes.size() - 1, true};
  }
  // n's index, or nodes().size() when this pass has not seen it.
  size_t find(Node* n) const {
    if (!s_->index.empty()) {
      auto it = s_->index.find(n);
      return it == s_->index.end() ? s_->nodes.size() : it->second;
    }
    for (size_t i = 0; i < s_->nodes.size(); ++i)
      if (s_->nodes[i] == n) return i;
    return s_->nodes.size();
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
    backend_for(acc).binary(ops::row::add, pairs, pairs, complex_pairs_view(g));
  } else {
    backend_for(acc).binary(ops::row::add, acc, acc, g);
  }
}

void accumulate_grad(const Tensor& t, const Tensor& g) {
  if (grad_enabled() && g->requires_grad) {
    // backward(create_graph=True): .grad keeps the gradient's graph, so it
    // can be differentiated again; out of place, as PyTorch's AccumulateGrad.
    const Tensor own = ops::clone(g);
    t->update_grad([&](Tensor& acc) {
      if (acc) check_accumulable(t, acc, g);
      acc = acc ? ops::add(acc, g) : own;
    });
    return;
  }
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

std::shared_ptr<Node> shared_grad_accumulator(const Tensor& leaf) { return grad_accumulator(leaf); }

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
  if (anomaly_enabled()) anomaly_note_recorded(node);  // anomaly mode: keep the forward trace
}

namespace {

// The node currently applied by a create_graph pass on this thread (its
// owning edge), for output_with_graph.
thread_local const std::shared_ptr<Node>* t_running = nullptr;

// A pass's entry: its edges lead to the roots; it hands each its gradient.
// Lives on the pass's stack: nothing points to it.
struct GraphRoot final : Node {
  const char* name() const override { return "GraphRoot"; }
  std::vector<Tensor> apply(const std::vector<Tensor>&) override { return grads; }
  std::vector<Tensor> grads;
};

// What a create_graph pass makes the results of a node without a
// differentiable backward: differentiating them again fails, naming the node.
struct NotImplementedBackward final : Node {
  explicit NotImplementedBackward(const char* of) : name_(std::string(of) + "Backward"), of_(of) {}
  const char* name() const override { return name_.c_str(); }
  std::vector<Tensor> apply(const std::vector<Tensor>&) override {
    fail(TC_ERR_NOT_IMPLEMENTED, str(double_backward_error(of_.c_str()), " (the gradients computed by ", of_,
                                     " under create_graph are not differentiable)"));
  }

 private:
  std::string name_, of_;
};

// Under create_graph: n's results (out) become outputs of a NotImplemented
// node over n's inputs and n's incoming gradients, unless n's formula is
// differentiable (has_double_backward).
void mark_not_differentiable(Node& n, const std::vector<Tensor>& grads_in, std::vector<Tensor>& out,
                             bool always = false) {
  // A custom function's backward ran with grad mode on: what it computed with
  // recorded ops is differentiable, the rest constant, as in PyTorch.
  if (!always && (dynamic_cast<const CustomFunctionNode*>(&n) != nullptr || has_double_backward(n.name())))
    return;
  auto node = std::allocate_shared<NotImplementedBackward>(PoolAllocator<NotImplementedBackward>(), n.name());
  for (const Edge& e : n.next) node->next.push_back(e);  // the results depend on n's inputs (saved)
  for (const Tensor& g : grads_in) {
    if (!g || !g->grad_fn) continue;  // a gradient without a graph is a constant here
    Edge e;
    e.node = g->grad_fn;
    e.input_nr = g->output_nr;
    node->next.push_back(std::move(e));
  }
  std::vector<Tensor> marked;
  for (Tensor& t : out) {
    if (!t) continue;
    t = alias(t);
    marked.push_back(t);
  }
  if (marked.empty()) return;
  node->num_outputs = uint32_t(marked.size());
  for (uint32_t i = 0; i < marked.size(); ++i) {
    node->output_shapes.push_back(marked[i]->shape);
    node->output_dtypes.push_back(marked[i]->dtype);
    node->output_devices.push_back(marked[i]->device);
    marked[i]->requires_grad = true;
    marked[i]->grad_fn = node;
    marked[i]->output_nr = i;
  }
}

// Grad mode for the pass: on with create_graph (the formulas record a graph).
class PassGradMode {
 public:
  explicit PassGradMode(bool on) : prev_(grad_enabled()) { set_grad_enabled(on); }
  ~PassGradMode() { set_grad_enabled(prev_); }
  PassGradMode(const PassGradMode&) = delete;
  PassGradMode& operator=(const PassGradMode&) = delete;

 private:
  bool prev_;
};

// Where a pass takes a gradient: output output_nr of node (a leaf: its
// AccumulateGrad), into slot `slot` of the result.
struct Target {
  Node* node;
  uint32_t output_nr;
};

struct PassPlan {
  bool retain_graph = false;
  bool create_graph = false;
  bool capture = false;  // autograd.grad: hand gradients back, accumulate nothing
  bool prune = false;    // run only the nodes that lead to a target or a run_leaf
  std::vector<Target> targets;
  std::vector<Node*> run_leaves;  // backward(inputs=): the AccumulateGrad nodes that run
};

// One pass from root's edges. Returns the gradient taken at each target (null
// where none arrived).
std::vector<Tensor> run_pass(GraphRoot& root, const PassPlan& plan) {
  PassGradMode grad_mode(plan.create_graph);
  // Dependency counts: one per edge into a node from a node of this graph.
  // (Edges are fixed when a node is recorded, so other threads may walk the
  // same graph at the same time.)
  PassNodes pass;
  std::vector<Node*>& stack = pass.stack();
  pass.find_or_add(&root);
  stack.push_back(&root);
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next) {
      if (!e.node) continue;
      auto [i, fresh] = pass.find_or_add(e.node.get());
      ++pass.info(i).deps;
      if (fresh) {
        pass.info(i).owner = &e.node;
        stack.push_back(e.node.get());
      }
    }
  }
  const std::vector<Node*>& nodes = pass.nodes();
  for (const Target& t : plan.targets) {
    const size_t i = pass.find(t.node);  // not in the graph: its gradient stays null
    if (i < nodes.size()) pass.info(i).target = true;
  }
  std::vector<Node*> claimed;
  if (plan.prune) {
    // Topological order (Kahn's over copies of the counts), then from the
    // leaves up: a node runs when one of its edges leads to a wanted node.
    std::vector<int64_t> deps(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) deps[i] = pass.info(i).deps;
    std::vector<size_t> order{0};
    for (size_t k = 0; k < order.size(); ++k) {
      for (const Edge& e : nodes[order[k]]->next) {
        if (!e.node) continue;
        const size_t j = pass.index_of(e.node.get());
        if (--deps[j] == 0) order.push_back(j);
      }
    }
    std::vector<char> reach(nodes.size(), 0);
    for (size_t k = order.size(); k-- > 0;) {
      const size_t i = order[k];
      Node* n = nodes[i];
      bool run = std::find(plan.run_leaves.begin(), plan.run_leaves.end(), n) != plan.run_leaves.end();
      for (const Edge& e : n->next)
        if (e.node && reach[pass.index_of(e.node.get())]) run = true;
      pass.info(i).run = run;
      reach[i] = run || pass.info(i).target;
    }
    for (size_t i = 0; i < nodes.size(); ++i)
      if (pass.info(i).run) claimed.push_back(nodes[i]);
  }
  GraphClaim claim(plan.prune ? claimed : nodes, plan.retain_graph);

  std::vector<Tensor> taken(plan.targets.size());
  std::vector<Node*>& ready = stack;  // empty now: its room is reused
  ready.push_back(&root);
  while (!ready.empty()) {
    Node* n = ready.back();
    ready.pop_back();
    PassNodes::Info& in = pass.info(pass.index_of(n));
    std::vector<Tensor> out;
    if (n == &root) {
      out = root.grads;
    } else if (in.run || in.target) {
      in.grads.resize(n->num_outputs);
      run_output_hooks(*n, in.grads);  // before .grad is retained, as PyTorch
      if (!plan.capture) deliver_retained(n, in.grads);
      if (in.target) {
        for (size_t t = 0; t < plan.targets.size(); ++t)
          if (plan.targets[t].node == n && plan.targets[t].output_nr < in.grads.size())
            taken[t] = in.grads[plan.targets[t].output_nr];
      }
      const bool any =
          std::any_of(in.grads.begin(), in.grads.end(), [](const Tensor& t) { return t != nullptr; });
      if (in.run && any) {
        if (plan.create_graph) {
          const std::shared_ptr<Node>* prev = t_running;
          t_running = in.owner;
          try {
            out = n->apply(in.grads);
          } catch (...) {
            t_running = prev;
            throw;
          }
          t_running = prev;
          if (!n->next.empty()) mark_not_differentiable(*n, in.grads, out);
        } else {
          out = n->apply_owned(in.grads);  // in.grads is cleared below: the node may take them
        }
        if (anomaly_enabled()) anomaly_check_gradients(*n, out);  // anomaly mode: NaN gradients fail
        TC_CHECK(out.size() == n->next.size() || n->next.empty(), TC_ERR_INTERNAL, "backward: ", n->name(),
                 " returned ", out.size(), " gradients for ", n->next.size(), " inputs");
      }
      if (in.run) claim.release(n);
    }
    in.grads.clear();
    for (size_t i = 0; i < n->next.size(); ++i) {
      const Edge& e = n->next[i];
      if (!e.node) continue;
      PassNodes::Info& child = pass.info(pass.index_of(e.node.get()));
      const Tensor g = i < out.size() ? out[i] : nullptr;
      if (g && (child.run || child.target)) {
        check_grad(g, *n, *e.node, uint32_t(i), e.input_nr);
        if (child.grads.size() < e.node->num_outputs) child.grads.resize(e.node->num_outputs);
        Tensor& slot = child.grads[e.input_nr];
        slot = slot ? ops::add(slot, g) : g;
      }
      if (--child.deps == 0) ready.push_back(e.node.get());
    }
  }
  return taken;
}

// The pass's entry for roots with their gradients (ones for a one-element
// root given none), checked as PyTorch's _make_grads.
void connect_roots(GraphRoot& root, const std::vector<Tensor>& roots, const std::vector<Tensor>& grads) {
  TC_CHECK(grads.empty() || grads.size() == roots.size(), TC_ERR_INVALID_ARGUMENT, "grad can be given for ",
           roots.size(), " outputs, but ", grads.size(), " were given");
  root.next.reserve(roots.size());
  root.grads.reserve(roots.size());
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& r = roots[i];
    TC_CHECK(r, TC_ERR_INVALID_ARGUMENT, "output ", i, " is null");
    TC_CHECK(r->requires_grad, TC_ERR_AUTOGRAD, "element ", i,
             " of tensors does not require grad and does not have a grad_fn");
    Tensor g = grads.empty() ? nullptr : grads[i];
    if (!g) {
      TC_CHECK(r->numel() == 1, TC_ERR_AUTOGRAD,
               "grad can be implicitly created only for scalar outputs (output ", i, " has shape ", r->shape,
               "); pass a gradient of that shape");
      g = ones(r->shape, r->dtype, r->device);
    } else {
      TC_CHECK(g->shape == r->shape, TC_ERR_SHAPE, "Mismatch in shape: grad_output[", i, "] has a shape of ",
               g->shape, " and output[", i, "] has a shape of ", r->shape);
      // A floating gradient of another dtype is converted, as PyTorch's engine does.
      if (g->dtype != r->dtype && is_floating(g->dtype) && is_floating(r->dtype))
        g = ops::to_dtype(g, r->dtype);
      TC_CHECK(g->dtype == r->dtype, TC_ERR_DTYPE, "backward: the gradient ", i, " is ", dtype_name(g->dtype),
               " but output ", i, " is ", dtype_name(r->dtype));
      TC_CHECK(g->device == r->device, TC_ERR_DEVICE, "backward: the gradient ", i, " is on ",
               device_name(g->device), " but output ", i, " is on ", device_name(r->device));
    }
    Edge e;
    if (r->grad_fn) {
      e.node = r->grad_fn;
      e.input_nr = r->output_nr;
    } else {
      e.node = grad_accumulator(r);
    }
    root.next.push_back(std::move(e));
    root.grads.push_back(std::move(g));
  }
}

}  // namespace

Tensor output_with_graph(const Tensor& saved, uint32_t output_nr) {
  if (!saved || !grad_enabled() || t_running == nullptr || !*t_running) return saved;
  Tensor v = make_view(saved, saved->shape, saved->strides, saved->offset);
  v->requires_grad = true;
  v->grad_fn = *t_running;
  v->output_nr = output_nr;
  return v;
}

std::vector<Tensor> vjp_recorded(const std::vector<Tensor>& inputs, const std::vector<bool>& wanted,
                                 const std::function<Tensor(const std::vector<Tensor>&)>& forward,
                                 const Tensor& grad_out) {
  std::vector<Tensor> targets, out(inputs.size());
  std::vector<size_t> at;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!wanted[i]) continue;
    if (!inputs[i] || !inputs[i]->requires_grad) return {};
    targets.push_back(inputs[i]);
    at.push_back(i);
  }
  if (targets.empty()) return out;
  const Tensor y = forward(inputs);
  if (!y->requires_grad) return {};
  const std::vector<Tensor> gs = grad({y}, {grad_out}, targets, true, true, true, true);
  for (size_t k = 0; k < at.size(); ++k) out[at[k]] = gs[k];
  return out;
}

void not_differentiable(std::vector<Tensor>& results) {
  if (!grad_enabled() || t_running == nullptr || !*t_running) return;
  mark_not_differentiable(**t_running, {}, results, true);
}

std::string double_backward_error(const char* name) {
  // "ConvolutionBackward" -> 'convolution_backward', as PyTorch names the
  // function whose derivative is missing; other names get "_backward".
  std::string base(name);
  const size_t at = base.rfind("Backward");
  if (at != std::string::npos && at > 0 && base.find_first_not_of("0123456789", at + 8) == std::string::npos)
    base.resize(at);
  std::string snake;
  for (size_t i = 0; i < base.size(); ++i) {
    const char c = base[i];
    if (c >= 'A' && c <= 'Z') {
      if (i > 0 && base[i - 1] >= 'a' && base[i - 1] <= 'z') snake += '_';  // MaxPool2D: max_pool2d
      snake += char(c - 'A' + 'a');
    } else {
      snake += c;
    }
  }
  return "the derivative of '" + snake + "_backward' is not implemented";
}

void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grads, bool retain_graph,
              bool create_graph, const std::vector<Tensor>* inputs) {
  TC_CHECK(!roots.empty(), TC_ERR_INVALID_ARGUMENT, "backward: no tensors to backpropagate from");
  GraphRoot root;
  connect_roots(root, roots, grads);
  PassPlan plan;
  plan.retain_graph = retain_graph;
  plan.create_graph = create_graph;
  std::vector<Tensor> non_leaves;
  std::vector<std::shared_ptr<Node>> keep;  // the inputs' AccumulateGrad nodes while the pass runs
  if (inputs) {
    TC_CHECK(!inputs->empty(), TC_ERR_INVALID_ARGUMENT,
             "backward: inputs argument is empty (pass NULL "
             "inputs to accumulate into every leaf)");
    plan.prune = true;
    for (size_t i = 0; i < inputs->size(); ++i) {
      const Tensor& t = (*inputs)[i];
      TC_CHECK(t, TC_ERR_INVALID_ARGUMENT, "backward: input ", i, " is null");
      TC_CHECK(t->requires_grad, TC_ERR_AUTOGRAD, "One of the differentiated Tensors does not require grad");
      if (t->is_leaf()) {
        keep.push_back(grad_accumulator(t));
        plan.run_leaves.push_back(keep.back().get());
      } else {
        plan.targets.push_back({t->grad_fn.get(), t->output_nr});
        non_leaves.push_back(t);
      }
    }
  }
  const std::vector<Tensor> taken = run_pass(root, plan);
  PassGradMode grad_mode(create_graph);
  for (size_t i = 0; i < non_leaves.size(); ++i)
    if (taken[i]) accumulate_grad(non_leaves[i], taken[i]);
}

void backward(const Tensor& root, const Tensor& grad, bool retain_graph) {
  TC_CHECK(root->requires_grad, TC_ERR_AUTOGRAD, "backward: the root tensor (shape ", root->shape,
           ") does not require grad and has no grad_fn");
  if (!grad) {
    TC_CHECK(root->numel() == 1, TC_ERR_AUTOGRAD,
             "backward: grad can be implicitly created only for a one-element root, but the root has shape ",
             root->shape, "; pass a gradient of that shape");
  } else {
    TC_CHECK(grad->shape == root->shape, TC_ERR_SHAPE, "backward: the gradient has shape ", grad->shape,
             " but the root has shape ", root->shape);
    TC_CHECK(grad->dtype == root->dtype, TC_ERR_DTYPE, "backward: the gradient is ", dtype_name(grad->dtype),
             " but the root is ", dtype_name(root->dtype));
    TC_CHECK(grad->device == root->device, TC_ERR_DEVICE, "backward: the gradient is on ",
             device_name(grad->device), " but the root is on ", device_name(root->device));
  }
  if (root->is_leaf()) {
    NoGradGuard no_grad;
    accumulate_leaf(root, grad ? grad : ones(root->shape, root->dtype, root->device));
    return;
  }
  backward(std::vector<Tensor>{root}, std::vector<Tensor>{grad}, retain_graph, false, nullptr);
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs,
                         const std::vector<Tensor>& inputs, bool retain_graph, bool create_graph,
                         bool allow_unused, bool materialize_grads) {
  TC_CHECK(!outputs.empty(), TC_ERR_INVALID_ARGUMENT, "grad requires at least one output");
  TC_CHECK(!inputs.empty(), TC_ERR_INVALID_ARGUMENT, "grad requires non-empty inputs.");
  PassPlan plan;
  plan.retain_graph = retain_graph;
  plan.create_graph = create_graph;
  plan.capture = true;
  plan.prune = true;
  std::vector<std::shared_ptr<Node>> keep;  // leaves' AccumulateGrad nodes while the pass runs
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    TC_CHECK(t, TC_ERR_INVALID_ARGUMENT, "grad: input ", i, " is null");
    TC_CHECK(t->requires_grad, TC_ERR_AUTOGRAD, "One of the differentiated Tensors does not require grad");
    if (t->is_leaf()) {
      keep.push_back(grad_accumulator(t));
      plan.targets.push_back({keep.back().get(), 0});
    } else {
      plan.targets.push_back({t->grad_fn.get(), t->output_nr});
    }
  }
  GraphRoot root;
  connect_roots(root, outputs, grad_outputs);
  std::vector<Tensor> taken = run_pass(root, plan);
  for (size_t i = 0; i < taken.size(); ++i) {
    if (taken[i]) {
      // A leaf's gradient in its dtype, as AccumulateGrad would make it.
      if (inputs[i]->is_leaf() && taken[i]->dtype != inputs[i]->dtype) {
        PassGradMode grad_mode(create_graph);
        taken[i] = cast(taken[i], inputs[i]->dtype);
      }
      continue;
    }
    TC_CHECK(allow_unused || materialize_grads, TC_ERR_AUTOGRAD,
             "One of the differentiated Tensors appears to not have been used in the graph. Set "
             "allow_unused=True if this is the desired behavior.");
    if (materialize_grads) taken[i] = zeros(inputs[i]->shape, inputs[i]->dtype, inputs[i]->device);
  }
  return taken;
}

Tensor reduce_to_shape(const Tensor& grad, const Dims& shape) {
  if (grad->shape == shape || !grad_enabled() || !grad->requires_grad) return ops::sum_to_size(grad, shape);
  // Under create_graph: the same sum, recorded (sum_to_size never is).
  const int64_t lead = grad->ndim() - int64_t(shape.size());
  Dims dims;
  for (int64_t i = 0; i < grad->ndim(); ++i)
    if (i < lead || (shape[i - lead] == 1 && grad->shape[i] != 1)) dims.push_back(i);
  return ops::reshape(dims.empty() ? grad : ops::sum(grad, dims, true), shape);
}

}  // namespace tc::autograd
