// tc_* functions of tc.h's section on custom functions, hooks and the graph.
#include <algorithm>
#include <cstddef>
#include <cstring>

#include "abi/callbacks.h"
#include "abi/custom_call.h"
#include "autograd/function.h"
#include "autograd/hooks.h"

using namespace tc;
using autograd::HookRegistration;
using autograd::Node;

namespace {

tc_function_def read_def(const tc_function_def* def) {
  in_ptr(def, "def");
  constexpr size_t kMin = offsetof(tc_function_def, release) + sizeof(tc_deleter);
  TC_CHECK(def->size >= kMin && def->size <= 4096, TC_ERR_INVALID_ARGUMENT, "def->size is ", def->size,
           "; set it to sizeof(tc_function_def) (", sizeof(tc_function_def), ")");
  tc_function_def d{};
  std::memcpy(&d, def, std::min<size_t>(def->size, sizeof d));
  return d;
}

// The backward closure of a custom node: lends the tensors to call.
autograd::CustomBackwardFn custom_backward(CustomBackwardCall call, std::string what) {
  return [call = std::move(call), what = std::move(what)](const std::vector<Tensor>& saved,
                                                          const std::vector<Tensor>& grads,
                                                          const std::vector<bool>& needs) {
    LentHandles lent;
    std::vector<tc_tensor> hs, hg;
    for (const Tensor& t : saved) hs.push_back(t ? lent.lend(t) : nullptr);
    for (const Tensor& t : grads) hg.push_back(lent.lend(t));
    std::vector<int32_t> need(needs.begin(), needs.end());
    const int64_t n_in = int64_t(needs.size());
    std::vector<tc_tensor> gin(size_t(n_in) + 1, nullptr);
    WrittenHandles written(gin.data(), n_in);
    run_callback(str("the backward of ", what), [&] {
      return call(hs.data(), int64_t(hs.size()), hg.data(), int64_t(hg.size()), need.data(), gin.data(),
                  n_in);
    });
    std::vector<Tensor> out(static_cast<size_t>(n_in));
    for (int64_t i = 0; i < n_in; ++i)
      out[size_t(i)] = written.take(i, str("grad_inputs[", i, "] written by the backward of ", what));
    return out;
  };
}

}  // namespace

std::vector<Tensor> tc::apply_custom(const CustomCall& call, const std::vector<Tensor>& in, int64_t cap) {
  const std::string& name = call.name;
  const int64_t n_inputs = int64_t(in.size());
  const bool record = call.backward != nullptr && autograd::needs_grad(in);
  std::vector<int32_t> needs(size_t(n_inputs) + 1, 0);
  for (int64_t i = 0; i < n_inputs; ++i) needs[size_t(i)] = record && in[size_t(i)]->requires_grad ? 1 : 0;

  std::vector<Tensor> outs, saved, raw_outs;
  {
    LentHandles lent;
    std::vector<tc_tensor> hin;
    for (const Tensor& t : in) hin.push_back(lent.lend(t));
    tc_tensor out_slots[TC_FUNCTION_MAX_OUTPUTS] = {};
    tc_tensor saved_slots[TC_FUNCTION_MAX_SAVED] = {};
    WrittenHandles w_out(out_slots, TC_FUNCTION_MAX_OUTPUTS), w_saved(saved_slots, TC_FUNCTION_MAX_SAVED);
    int64_t n_out = 0, n_saved = 0;
    {
      NoGradGuard no_grad;
      run_callback(str("the forward of ", call.what), [&] {
        return call.forward(hin.data(), needs.data(), out_slots, &n_out, saved_slots, &n_saved);
      });
    }
    TC_CHECK(n_out >= 0 && n_out <= TC_FUNCTION_MAX_OUTPUTS, TC_ERR_CALLBACK, "the forward of '", name,
             "' reported ", n_out, " outputs (at most ", TC_FUNCTION_MAX_OUTPUTS, ")");
    TC_CHECK(call.expected_outputs < 0 || n_out == call.expected_outputs, TC_ERR_CALLBACK, "the forward of ",
             call.what, " reported ", n_out, " outputs but its schema has ", call.expected_outputs);
    TC_CHECK(n_saved >= 0 && n_saved <= TC_FUNCTION_MAX_SAVED, TC_ERR_CALLBACK, "the forward of '", name,
             "' reported ", n_saved, " saved tensors (at most ", TC_FUNCTION_MAX_SAVED, ")");
    for (int64_t i = 0; i < n_out; ++i) {
      Tensor t = w_out.take(i, str("outputs[", i, "] written by the forward of '", name, "'"));
      TC_CHECK(t != nullptr, TC_ERR_CALLBACK, "the forward of '", name, "' reported ", n_out,
               " outputs but left outputs[", i, "] NULL");
      raw_outs.push_back(t);
      outs.push_back(autograd::alias(t));  // a fresh tensor: an input returned as is stays a leaf
    }
    for (int64_t i = 0; i < n_saved; ++i)
      saved.push_back(w_saved.take(i, str("saved[", i, "] written by the forward of '", name, "'")));
  }
  TC_CHECK(cap >= int64_t(outs.size()), TC_ERR_INVALID_ARGUMENT, "cap is ", cap, " but the function made ",
           outs.size(), " outputs");
  if (record) {
    std::vector<autograd::SavedTensor> s;
    for (const Tensor& t : saved) s.emplace_back(t);
    auto node = std::make_shared<autograd::CustomFunctionNode>(name, std::move(s),
                                                               custom_backward(call.backward, call.what));
    // The saved outputs (not inputs returned as they are), read with their
    // graph when the backward runs under create_graph.
    for (const Tensor& t : saved) {
      int32_t nr = -1;
      const bool is_input = std::find(in.begin(), in.end(), t) != in.end();
      for (size_t i = 0; t && !is_input && i < raw_outs.size() && nr < 0; ++i)
        if (raw_outs[i] == t) nr = int32_t(i);
      node->saved_output_nr.push_back(nr);
    }
    autograd::record(node, in, outs);
    for (const Tensor& o : outs) {
      if (is_differentiable(o->dtype)) continue;  // the others are not differentiable
      o->grad_fn.reset();
      o->requires_grad = false;
    }
  }
  return outs;
}

TC_API int32_t tc_function_apply(const tc_function_def* def, const tc_tensor* inputs, int64_t n_inputs,
                                 tc_tensor* outputs, int64_t cap, int64_t* count) {
  // Released exactly once (tc.h), also when this call fails before it starts.
  std::shared_ptr<CallbackContext> ctx;
  bool handed = false;
  const int32_t rc = api("tc_function_apply", [&] {
    const tc_function_def d = read_def(def);
    handed = true;
    ctx = make_callback_context(d.context, d.release);
    TC_CHECK(d.reserved0 == 0, TC_ERR_INVALID_ARGUMENT, "def->reserved0 must be 0 but is ", d.reserved0);
    TC_CHECK(d.forward != nullptr, TC_ERR_INVALID_ARGUMENT, "def->forward must not be NULL");
    const std::string name = d.name ? d.name : "CustomFunctionBackward";
    TC_CHECK(n_inputs >= 0 && n_inputs <= TC_FUNCTION_MAX_INPUTS, TC_ERR_INVALID_ARGUMENT,
             "n_inputs must be in [0, ", TC_FUNCTION_MAX_INPUTS, "] but is ", n_inputs);
    TC_CHECK(n_inputs == 0 || inputs != nullptr, TC_ERR_INVALID_ARGUMENT,
             "inputs must not be NULL when n_inputs is ", n_inputs);
    TC_CHECK(cap >= 0, TC_ERR_INVALID_ARGUMENT, "cap must be >= 0 but is ", cap);
    TC_CHECK(cap == 0 || outputs != nullptr, TC_ERR_INVALID_ARGUMENT, "outputs must not be NULL when cap is ",
             cap);
    out_ptr(count, "count");
    std::vector<Tensor> in;
    for (int64_t i = 0; i < n_inputs; ++i)
      in.push_back(get_tensor(inputs[i], str("inputs[", i, "]").c_str()));
    CustomCall call;
    call.name = name;
    call.what = str("custom function '", name, "'");
    call.forward = [&d, n_inputs](const tc_tensor* hin, const int32_t* needs, tc_tensor* outs, int64_t* n_out,
                                  tc_tensor* saved, int64_t* n_saved) {
      return d.forward(d.context, hin, n_inputs, needs, outs, n_out, saved, n_saved);
    };
    if (d.backward) {
      const std::shared_ptr<CallbackContext> keep = ctx;  // the node's closure holds the context
      const tc_function_backward bw = d.backward;
      call.backward = [keep, bw](const tc_tensor* saved, int64_t n_saved, const tc_tensor* grads,
                                 int64_t n_out, const int32_t* needs, tc_tensor* gin, int64_t n_in) {
        return bw(keep->context, saved, n_saved, grads, n_out, needs, gin, n_in);
      };
    }
    const std::vector<Tensor> outs = apply_custom(call, in, cap);
    call = CustomCall();  // a node holds the context now, if one was recorded
    ctx.reset();          // the node holds it now, if it recorded one
    new_handles(outs, outputs);
    *count = int64_t(outs.size());
  });
  // Refused before def was read (libtc not initialized): release it here when
  // def is readable.
  if (rc != TC_OK && !handed && def && def->size >= offsetof(tc_function_def, release) + sizeof(tc_deleter) &&
      def->size <= 4096 && def->release)
    def->release(nullptr, def->context);
  return rc;  // (ctx, if still held, is released on the way out)
}

// ---- hooks ----

namespace {

tc_hook new_hook_handle(std::shared_ptr<HookRegistration> r) {
  return reinterpret_cast<tc_hook>(handle_insert(HandleKind::hook, std::move(r)));
}

}  // namespace

TC_API int32_t tc_tensor_register_hook(tc_tensor t, tc_grad_hook hook, void* context, tc_deleter release,
                                       tc_hook* out) {
  bool handed = false;  // release is called once: by the context, or below
  const int32_t rc = api("tc_tensor_register_hook", [&] {
    handed = true;
    auto ctx = make_callback_context(context, release);
    const Tensor x = get_tensor(t, "t");
    TC_CHECK(hook != nullptr, TC_ERR_INVALID_ARGUMENT, "hook must not be NULL");
    out_ptr(out, "out");
    autograd::GradHookFn fn = [ctx = std::move(ctx), hook](const Tensor& grad) -> Tensor {
      LentHandles lent;
      tc_tensor g = lent.lend(grad);
      tc_tensor slot[1] = {nullptr};
      WrittenHandles written(slot, 1);
      run_callback("a gradient hook", [&] { return hook(ctx->context, g, &slot[0]); });
      return written.take(0, "the replacement written by a gradient hook");
    };
    auto reg = autograd::register_grad_hook(x, std::move(fn));
    try {
      *out = new_hook_handle(reg);
    } catch (...) {
      autograd::remove_hook(*reg);
      throw;
    }
  });
  if (rc != TC_OK && !handed && release) release(nullptr, context);
  return rc;
}

TC_API int32_t tc_tensor_register_post_accumulate_grad_hook(tc_tensor t, tc_tensor_hook hook, void* context,
                                                            tc_deleter release, tc_hook* out) {
  bool handed = false;  // release is called once: by the context, or below
  const int32_t rc = api("tc_tensor_register_post_accumulate_grad_hook", [&] {
    handed = true;
    auto ctx = make_callback_context(context, release);
    const Tensor x = get_tensor(t, "t");
    TC_CHECK(hook != nullptr, TC_ERR_INVALID_ARGUMENT, "hook must not be NULL");
    out_ptr(out, "out");
    autograd::PostAccumulateHookFn fn = [ctx = std::move(ctx), hook](const Tensor& leaf) {
      LentHandles lent;
      tc_tensor h = lent.lend(leaf);
      run_callback("a post-accumulate-grad hook", [&] { return hook(ctx->context, h); });
    };
    auto reg = autograd::register_post_accumulate_hook(x, std::move(fn));
    try {
      *out = new_hook_handle(reg);
    } catch (...) {
      autograd::remove_hook(*reg);
      throw;
    }
  });
  if (rc != TC_OK && !handed && release) release(nullptr, context);
  return rc;
}

TC_API int32_t tc_hook_remove(tc_hook h) {
  return api("tc_hook_remove", [&] {
    const uint64_t v = reinterpret_cast<uint64_t>(h);
    const auto reg = std::static_pointer_cast<HookRegistration>(handle_get(v, HandleKind::hook, "h"));
    handle_remove(v, HandleKind::hook, "h");  // a second remove (or a racing one) fails here
    autograd::remove_hook(*reg);
  });
}

// ---- the graph ----

namespace {

std::shared_ptr<Node> get_node(tc_node h, const char* arg) {
  return std::static_pointer_cast<Node>(handle_get(reinterpret_cast<uint64_t>(h), HandleKind::node, arg));
}
tc_node new_node_handle(std::shared_ptr<Node> n) {
  return reinterpret_cast<tc_node>(handle_insert(HandleKind::node, std::move(n)));
}

}  // namespace

TC_API int32_t tc_tensor_grad_fn(tc_tensor t, tc_node* out) {
  return api("tc_tensor_grad_fn", [&] {
    const Tensor x = get_tensor(t, "t");
    out_ptr(out, "out");
    *out = x->grad_fn ? new_node_handle(x->grad_fn) : nullptr;
  });
}

TC_API int32_t tc_node_name(tc_node node, char* buf, int64_t cap, int64_t* needed) {
  return api("tc_node_name", [&] { copy_out(get_node(node, "node")->name(), buf, cap, needed); });
}

TC_API int32_t tc_node_next_count(tc_node node, int64_t* out) {
  return api("tc_node_next_count", [&] {
    const auto n = get_node(node, "node");
    out_ptr(out, "out");
    *out = int64_t(n->next.size());
  });
}

TC_API int32_t tc_node_next(tc_node node, int64_t index, tc_node* next, int64_t* input_nr) {
  return api("tc_node_next", [&] {
    const auto n = get_node(node, "node");
    out_ptr(next, "next");
    out_ptr(input_nr, "input_nr");
    TC_CHECK(index >= 0 && index < int64_t(n->next.size()), TC_ERR_INDEX, "index ", index,
             " is out of range for ", n->name(), ", which has ", n->next.size(), " inputs");
    const autograd::Edge& e = n->next[size_t(index)];
    *next = e.node ? new_node_handle(e.node) : nullptr;
    *input_nr = e.input_nr;
  });
}

TC_API int32_t tc_node_same(tc_node a, tc_node b, int32_t* out) {
  return api("tc_node_same", [&] {
    const auto x = get_node(a, "a");
    const auto y = get_node(b, "b");
    out_ptr(out, "out");
    *out = x == y ? 1 : 0;
  });
}

TC_API int32_t tc_node_free(tc_node node) {
  return api("tc_node_free",
             [&] { handle_remove(reinterpret_cast<uint64_t>(node), HandleKind::node, "node"); });
}
