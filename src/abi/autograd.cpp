// tc_* functions of tc.h's autograd section.
#include <cstdint>
#include <utility>

#include "abi/api.h"
#include "abi/args.h"
#include "abi/handles.h"
#include "autograd/engine.h"
#include "autograd/function.h"
#include "ops/ops.h"

using namespace tc;

TC_API int32_t tc_tensor_set_requires_grad(tc_tensor t, int32_t requires_grad) {
  return api(__func__, [&] {
    const Tensor x = get_tensor(t, "t");
    const bool want = requires_grad != 0;
    if (!x->is_leaf()) {
      TC_CHECK(want, TC_ERR_AUTOGRAD, "only leaf tensors can change requires_grad (t was made by ",
               x->grad_fn->name(), "; use tc_detach to get a leaf)");
      return;  // a non-leaf already requires grad
    }
    TC_CHECK(!want || is_differentiable(x->dtype), TC_ERR_DTYPE,
             "only floating-point tensors can require grad, but t is ", dtype_name(x->dtype));
    x->requires_grad = want;
  });
}

TC_API int32_t tc_tensor_requires_grad(tc_tensor t, int32_t* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = get_tensor(t, "t")->requires_grad ? 1 : 0;
  });
}

TC_API int32_t tc_tensor_is_leaf(tc_tensor t, int32_t* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = get_tensor(t, "t")->is_leaf() ? 1 : 0;
  });
}

TC_API int32_t tc_tensor_grad(tc_tensor t, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    const Tensor g = get_tensor(t, "t")->grad();
    *out = g ? new_handle(g) : nullptr;
  });
}

TC_API int32_t tc_tensor_clear_grad(tc_tensor t) {
  return api(__func__, [&] { get_tensor(t, "t")->set_grad(nullptr); });
}

TC_API int32_t tc_tensor_set_grad(tc_tensor t, tc_tensor grad) {
  return api(__func__, [&] {
    const Tensor x = get_tensor(t, "t");
    const Tensor g = get_tensor(grad, "grad");
    // PyTorch's checks of `t.grad = grad`, in its words.
    TC_CHECK(g.get() != x.get(), TC_ERR_INVALID_ARGUMENT, "can't assign t as its own grad");
    TC_CHECK(g->dtype == x->dtype, TC_ERR_DTYPE, "assigned grad has data of a different type: grad is ",
             dtype_name(g->dtype), " but t is ", dtype_name(x->dtype));
    TC_CHECK(g->device == x->device, TC_ERR_DEVICE,
             "assigned grad has data located on a different device: grad is on ", device_name(g->device),
             " but t is on ", device_name(x->device));
    TC_CHECK(g->shape == x->shape, TC_ERR_SHAPE, "assigned grad has data of a different size: grad is ",
             g->shape, " but t is ", x->shape);
    // Not part of any graph and without a gradient of its own: a .grad that
    // referenced a graph or a gradient could close a reference cycle.
    TC_CHECK(!g->requires_grad && !g->grad_fn, TC_ERR_AUTOGRAD,
             "assigned grad requires grad (assign a detached tensor: grad.detach())");
    TC_CHECK(!g->grad(), TC_ERR_INVALID_ARGUMENT, "assigned grad has a .grad of its own");
    check_writable(g, "grad");  // backward accumulates into it in place
    // Not in t's own memory (PyTorch allows it; libtc does not, tc.h says
    // why): an optimizer step would read a gradient it is overwriting, and
    // a grad made from t's memory through DLPack or from_blob keeps t alive
    // from its storage's deleter, a cycle no reference count can free.
    const auto xs = byte_span(x), gs = byte_span(g);
    TC_CHECK(!(xs.first < gs.second && gs.first < xs.second), TC_ERR_INVALID_ARGUMENT,
             "assigned grad shares memory with t (a view of t, or t's memory through DLPack or from_blob); "
             "assign a copy: grad.clone()");
    x->set_grad(g);
  });
}

TC_API int32_t tc_tensor_set_data(tc_tensor t, tc_tensor data) {
  return api(__func__, [&] { set_data(get_tensor(t, "t"), get_tensor(data, "data")); });
}

TC_API int32_t tc_tensor_retain_grad(tc_tensor t) {
  return api(__func__, [&] {
    const Tensor x = get_tensor(t, "t");
    TC_CHECK(x->requires_grad, TC_ERR_AUTOGRAD, "retain_grad: t does not require grad");
    autograd::retain_grad(x);
  });
}

TC_API int32_t tc_tensor_grad_fn_name(tc_tensor t, char* buf, int64_t cap, int64_t* needed) {
  return api(__func__, [&] {
    const Tensor x = get_tensor(t, "t");
    copy_out(x->grad_fn ? x->grad_fn->name() : "", buf, cap, needed);
  });
}

TC_API int32_t tc_detach(tc_tensor t, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(ops::detach(get_tensor(t, "t")));
  });
}

TC_API int32_t tc_backward(tc_tensor root, tc_tensor grad, int32_t retain_graph) {
  return api(__func__, [&] {
    autograd::backward(get_tensor(root, "root"), get_optional_tensor(grad, "grad"), retain_graph != 0);
  });
}

namespace {
// Gradients given for outputs: NULL (all ones) or one optional handle each.
std::vector<Tensor> optional_list(const tc_tensor* handles, int64_t count, const char* arg) {
  std::vector<Tensor> v;
  if (!handles) return v;
  const std::string each = str(arg, "[i]");
  for (int64_t i = 0; i < count; ++i) v.push_back(get_optional_tensor(handles[i], each.c_str()));
  return v;
}

// retain_graph < 0: as create_graph (PyTorch's retain_graph=None).
bool retain(int32_t retain_graph, int32_t create_graph) {
  return retain_graph < 0 ? create_graph != 0 : retain_graph != 0;
}

// Handles for grads (NULL for a null one), all or none.
void out_handles(const std::vector<Tensor>& grads, tc_tensor* out) {
  std::vector<tc_tensor> made(grads.size(), nullptr);
  try {
    for (size_t i = 0; i < grads.size(); ++i)
      if (grads[i]) made[i] = new_handle(grads[i]);
  } catch (...) {
    for (tc_tensor h : made)
      if (h) handle_remove(reinterpret_cast<uint64_t>(h), HandleKind::tensor, "rollback");
    throw;
  }
  for (size_t i = 0; i < made.size(); ++i) out[i] = made[i];
}
}  // namespace

TC_API int32_t tc_autograd_grad(const tc_tensor* outputs, int64_t n_outputs, const tc_tensor* grad_outputs,
                                const tc_tensor* inputs, int64_t n_inputs, const tc_grad_options* options,
                                tc_tensor* out_grads) {
  return api(__func__, [&] {
    tc_grad_options o{sizeof(tc_grad_options), -1, 0, 0, 0};
    if (options) o = abi::options_arg(options, "options");
    in_ptr(out_grads, "out_grads");
    const std::vector<Tensor> outs = abi::tensor_list(outputs, n_outputs, "outputs", "n_outputs");
    const std::vector<Tensor> ins = abi::tensor_list(inputs, n_inputs, "inputs", "n_inputs");
    const std::vector<Tensor> gs = optional_list(grad_outputs, n_outputs, "grad_outputs");
    const std::vector<Tensor> grads =
        autograd::grad(outs, gs, ins, retain(o.retain_graph, o.create_graph), o.create_graph != 0,
                       o.allow_unused != 0, o.materialize_grads != 0);
    out_handles(grads, out_grads);
  });
}

TC_API int32_t tc_backward_ex(const tc_tensor* roots, int64_t n_roots, const tc_tensor* grads,
                              const tc_backward_options* options) {
  return api(__func__, [&] {
    tc_backward_options o{sizeof(tc_backward_options), -1, 0, nullptr, 0};
    if (options) o = abi::options_arg(options, "options");
    const std::vector<Tensor> rs = abi::tensor_list(roots, n_roots, "roots", "n_roots");
    const std::vector<Tensor> gs = optional_list(grads, n_roots, "grads");
    std::vector<Tensor> ins;
    if (o.inputs || o.n_inputs != 0)
      ins = abi::tensor_list(o.inputs, o.n_inputs, "options->inputs", "options->n_inputs");
    autograd::backward(rs, gs, retain(o.retain_graph, o.create_graph), o.create_graph != 0,
                       o.inputs ? &ins : nullptr);
  });
}

TC_API int32_t tc_set_grad_enabled(int32_t enabled, int32_t* previous) {
  return api(__func__, [&] {
    TC_CHECK(enabled == 0 || enabled == 1, TC_ERR_INVALID_ARGUMENT, "enabled must be 0 or 1 but is ",
             enabled);
    const bool prev = grad_enabled();
    set_grad_enabled(enabled != 0);
    if (previous) *previous = prev ? 1 : 0;
  });
}
