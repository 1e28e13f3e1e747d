#include "autograd/anomaly.h"

#include <atomic>
#include <cmath>
#include <mutex>
#include <string>
#include <unordered_map>

#include "autograd/node.h"
#include "core/error.h"
#include "ops/ops.h"

namespace tc::autograd {

namespace {
std::atomic<bool> g_enabled{false};
std::atomic<bool> g_check_nan{true};

// The forward traces of the nodes recorded while the mode was on. Keyed by
// address, with a weak_ptr to tell a live node from a later one at the same
// address; dead entries are swept when the table doubles.
struct Traces {
  std::mutex mu;
  AnomalyTraceFn fn = nullptr;
  void* context = nullptr;
  std::unordered_map<const Node*, std::pair<std::weak_ptr<Node>, std::string>> by_node;
  size_t sweep_at = 1024;
};
Traces& traces() {
  static auto* t = new Traces();  // never destroyed: nodes may die during static destruction
  return *t;
}

void sweep(Traces& t) {
  for (auto it = t.by_node.begin(); it != t.by_node.end();)
    it = it->second.first.expired() ? t.by_node.erase(it) : std::next(it);
  t.sweep_at = std::max<size_t>(1024, 2 * t.by_node.size());
}

bool has_nan(const Tensor& g) {
  if (!g || !is_floating(g->dtype) || g->numel() == 0) return false;
  // NaN is the only value not close to itself with equal_nan off.
  const Tensor same = ops::all(ops::isclose(g, g, 0.0, 0.0, false), {}, false);
  return read_element(ops::to_device(same, kCPU), 0) == 0.0;
}

// PyTorch's backward nodes end in a version number ("MulBackward0"); libtc's
// names ("MulBackward") do not: the message uses PyTorch's form.
std::string torch_name(const Node& node) {
  std::string name = node.name();
  const std::string suffix = "Backward";
  if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
    name += "0";
  return name;
}
}  // namespace

void set_anomaly_mode(bool enabled, bool check_nan, AnomalyTraceFn fn, void* context) {
  Traces& t = traces();
  std::lock_guard<std::mutex> g(t.mu);
  t.fn = fn;
  t.context = context;
  if (!enabled) t.by_node.clear();
  g_check_nan.store(check_nan, std::memory_order_relaxed);
  g_enabled.store(enabled, std::memory_order_release);
}

bool anomaly_enabled() noexcept { return g_enabled.load(std::memory_order_relaxed); }
bool anomaly_check_nan() noexcept { return g_check_nan.load(std::memory_order_relaxed); }

void anomaly_note_recorded(const std::shared_ptr<Node>& node) {
  Traces& t = traces();
  AnomalyTraceFn fn;
  void* context;
  {
    std::lock_guard<std::mutex> g(t.mu);
    fn = t.fn;
    context = t.context;
  }
  if (!fn) return;
  const char* text = fn(context);  // outside the lock: the hook runs user code
  if (!text) return;
  std::string trace(text);
  std::lock_guard<std::mutex> g(t.mu);
  if (t.by_node.size() >= t.sweep_at) sweep(t);
  t.by_node[node.get()] = {node, std::move(trace)};
}

void anomaly_check_gradients(const Node& node, const std::vector<Tensor>& grads) {
  if (!anomaly_check_nan()) return;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!has_nan(grads[i])) continue;
    std::string trace;
    {
      Traces& t = traces();
      std::lock_guard<std::mutex> g(t.mu);
      auto it = t.by_node.find(&node);
      if (it != t.by_node.end() && it->second.first.lock().get() == &node) trace = it->second.second;
    }
    const std::string name = torch_name(node);
    if (trace.empty())
      fail(TC_ERR_AUTOGRAD, str("Function '", name, "' returned nan values in its ", i, "th output."));
    fail(TC_ERR_AUTOGRAD,
         str("Function '", name, "' returned nan values in its ", i,
             "th output.\nTraceback of forward call that caused the error (", name, "):\n", trace));
  }
}

}  // namespace tc::autograd
