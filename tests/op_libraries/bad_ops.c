/* Small op libraries for the failure paths of tc_load_library, one per
 * BAD_* definition (tests/op_libraries/CMakeLists.txt builds each):
 *   BAD_NO_ENTRY        exports no tc_op_library_init
 *   BAD_ABI             built for another op library ABI version
 *   BAD_DUP_WITHIN      registers one name twice
 *   BAD_DUP_EXAMPLE     registers myops::scaled_square (the example's op)
 *   BAD_HALFWAY         registers two ops, then fails with a message
 *   BAD_IGNORES_FAILURE registers a bad schema, ignores the failure, returns TC_OK
 *   BAD_CALLBACKS       loads: bad::fail_forward (forward fails),
 *                       bad::fail_backward (backward fails),
 *                       bad::late_register (forward calls register_op outside
 *                       registration and returns its status),
 *                       bad::identity, bad::pair (two outputs, no backward),
 *                       bad::reenter (forward and backward run the hooks
 *                       bad_ops_set_hook set; the entry point runs its own) */
#include <stddef.h>

#include "tc.h"

#if defined(BAD_CALLBACKS)
static const tc_op_registrar* g_reg = NULL;
static void* g_reg_ctx = NULL;
/* Hooks a test sets (tests/gtest/test_reentrancy.cpp): run by the entry
 * point (which 0), bad::reenter's forward (1) and its backward (2). */
static int32_t (*g_hooks[3])(void*) = {NULL, NULL, NULL};
static void* g_hook_ctx[3] = {NULL, NULL, NULL};

TC_OP_LIBRARY_EXPORT void bad_ops_set_hook(int32_t which, int32_t (*hook)(void*), void* ctx) {
  g_hooks[which] = hook;
  g_hook_ctx[which] = ctx;
}

static int32_t run_hook(int which) { return g_hooks[which] ? g_hooks[which](g_hook_ctx[which]) : TC_OK; }
#endif

static int32_t identity_forward(void* context, const tc_tensor* inputs, int64_t n_inputs,
                                const double* scalars, int64_t n_scalars, const int32_t* needs_input_grad,
                                tc_tensor* outputs, int64_t* n_outputs, tc_tensor* saved, int64_t* n_saved) {
  (void)n_inputs;
  (void)scalars;
  (void)n_scalars;
  (void)needs_input_grad;
  (void)saved;
  (void)n_saved;
  const intptr_t mode = (intptr_t)context;
  if (mode == 1)
    return tc_set_last_error(TC_ERR_SHAPE, "bad::fail_forward refuses") == TC_OK ? TC_ERR_SHAPE : 99;
#if defined(BAD_CALLBACKS)
  if (mode == 3) {
    tc_op_def def = {0};
    def.size = sizeof def;
    def.abi_version = TC_OP_LIBRARY_ABI_VERSION;
    def.schema = "bad::too_late(Tensor x) -> Tensor";
    def.forward = identity_forward;
    return g_reg->register_op(g_reg_ctx, &def);
  }
  if (mode == 5) {
    const int32_t rc = run_hook(1);
    if (rc != TC_OK) return rc;
  }
#endif
  int32_t rc = tc_clone(inputs[0], &outputs[0]);
  if (rc != TC_OK) return rc;
  *n_outputs = 1;
  if (mode == 4) {
    rc = tc_clone(inputs[0], &outputs[1]);
    if (rc != TC_OK) return rc;
    *n_outputs = 2;
  }
  return TC_OK;
}

static int32_t failing_backward(void* context, const double* scalars, int64_t n_scalars,
                                const tc_tensor* saved, int64_t n_saved, const tc_tensor* grad_outputs,
                                int64_t n_outputs, const int32_t* needs_input_grad, tc_tensor* grad_inputs,
                                int64_t n_inputs) {
  (void)context;
  (void)scalars;
  (void)n_scalars;
  (void)saved;
  (void)n_saved;
  (void)grad_outputs;
  (void)n_outputs;
  (void)needs_input_grad;
  (void)grad_inputs;
  (void)n_inputs;
  tc_set_last_error(TC_ERR_INVALID_ARGUMENT, "bad::fail_backward refuses");
  return 42; /* not a TC_ERR_*: comes back as TC_ERR_CALLBACK */
}

static int32_t identity_backward(void* context, const double* scalars, int64_t n_scalars,
                                 const tc_tensor* saved, int64_t n_saved, const tc_tensor* grad_outputs,
                                 int64_t n_outputs, const int32_t* needs_input_grad, tc_tensor* grad_inputs,
                                 int64_t n_inputs) {
  (void)context;
  (void)scalars;
  (void)n_scalars;
  (void)saved;
  (void)n_saved;
  (void)n_outputs;
  (void)needs_input_grad;
  (void)n_inputs;
  return tc_tensor_retain(grad_outputs[0], &grad_inputs[0]);
}

#if defined(BAD_CALLBACKS)
static int32_t reenter_backward(void* context, const double* scalars, int64_t n_scalars,
                                const tc_tensor* saved, int64_t n_saved, const tc_tensor* grad_outputs,
                                int64_t n_outputs, const int32_t* needs_input_grad, tc_tensor* grad_inputs,
                                int64_t n_inputs) {
  const int32_t rc = run_hook(2);
  if (rc != TC_OK) return rc;
  return identity_backward(context, scalars, n_scalars, saved, n_saved, grad_outputs, n_outputs,
                           needs_input_grad, grad_inputs, n_inputs);
}
#endif

static int32_t add(const tc_op_registrar* reg, void* reg_ctx, const char* schema, intptr_t mode,
                   tc_op_backward backward) {
  tc_op_def def = {0};
  def.size = sizeof def;
  def.abi_version = TC_OP_LIBRARY_ABI_VERSION;
#if defined(BAD_ABI)
  def.abi_version = TC_OP_LIBRARY_ABI_VERSION + 1;
#endif
  def.schema = schema;
  def.forward = identity_forward;
  def.backward = backward;
  def.context = (void*)mode;
  return reg->register_op(reg_ctx, &def);
}

#if defined(BAD_NO_ENTRY)
TC_OP_LIBRARY_EXPORT int32_t tc_op_library_init_misspelt(const tc_op_registrar* reg, void* reg_ctx) {
  return add(reg, reg_ctx, "bad::unreachable(Tensor x) -> Tensor", 0, NULL);
}
#else
TC_OP_LIBRARY_EXPORT int32_t tc_op_library_init(const tc_op_registrar* reg, void* reg_ctx) {
  int32_t rc = TC_OK;
#if defined(BAD_ABI)
  rc = add(reg, reg_ctx, "bad::versioned(Tensor x) -> Tensor", 0, NULL);
#elif defined(BAD_DUP_WITHIN)
  rc = add(reg, reg_ctx, "bad::twice(Tensor x) -> Tensor", 0, NULL);
  if (rc == TC_OK) rc = add(reg, reg_ctx, "bad::twice(Tensor y) -> Tensor", 0, NULL);
#elif defined(BAD_DUP_EXAMPLE)
  rc = add(reg, reg_ctx, "bad::first(Tensor x) -> Tensor", 0, NULL);
  if (rc == TC_OK) rc = add(reg, reg_ctx, "myops::scaled_square(Tensor x, float alpha) -> Tensor", 0, NULL);
#elif defined(BAD_HALFWAY)
  rc = add(reg, reg_ctx, "bad::one(Tensor x) -> Tensor", 0, NULL);
  if (rc == TC_OK) rc = add(reg, reg_ctx, "bad::two(Tensor x) -> Tensor", 0, NULL);
  if (rc == TC_OK) {
    tc_set_last_error(TC_ERR_IO, "bad_halfway cannot find its data file");
    rc = TC_ERR_IO;
  }
#elif defined(BAD_IGNORES_FAILURE)
  add(reg, reg_ctx, "bad::good(Tensor x) -> Tensor", 0, NULL);
  add(reg, reg_ctx, "bad::broken(Tensor x -> Tensor", 0, NULL); /* status ignored */
#elif defined(BAD_CALLBACKS)
  g_reg = reg;
  g_reg_ctx = reg_ctx;
  rc = run_hook(0);
  if (rc == TC_OK) rc = add(reg, reg_ctx, "bad::fail_forward(Tensor x) -> Tensor", 1, NULL);
  if (rc == TC_OK) rc = add(reg, reg_ctx, "bad::fail_backward(Tensor x) -> Tensor", 0, failing_backward);
  if (rc == TC_OK) rc = add(reg, reg_ctx, "bad::late_register(Tensor x) -> Tensor", 3, NULL);
  if (rc == TC_OK) rc = add(reg, reg_ctx, "bad::identity(Tensor x, int k) -> Tensor", 0, identity_backward);
  if (rc == TC_OK) rc = add(reg, reg_ctx, "bad::pair(Tensor x) -> (Tensor, Tensor)", 4, NULL);
  if (rc == TC_OK) rc = add(reg, reg_ctx, "bad::reenter(Tensor x) -> Tensor", 5, reenter_backward);
#endif
  return rc;
}
#endif
