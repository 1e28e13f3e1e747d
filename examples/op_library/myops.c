/* An op library (tc.h, "Custom op libraries"): one op with a backward,
 *   myops::scaled_square(Tensor x, float alpha) -> Tensor  =  alpha * x^2,
 * whose gradient is 2 * alpha * x * grad. Load it with tc_load_library (C),
 * tc.ops.load_library (Python) or tc::ops::load_library (Rust). */
#include <stddef.h>

#include "tc.h"

static int32_t scaled_square_forward(void* context, const tc_tensor* inputs, int64_t n_inputs,
                                     const double* scalars, int64_t n_scalars,
                                     const int32_t* needs_input_grad, tc_tensor* outputs, int64_t* n_outputs,
                                     tc_tensor* saved, int64_t* n_saved) {
  (void)context;
  (void)n_inputs;
  (void)n_scalars;
  tc_tensor square = NULL;
  int32_t rc = tc_mul(inputs[0], inputs[0], &square);
  if (rc != TC_OK) return rc;
  rc = tc_mul_scalar(square, scalars[0], &outputs[0]);
  tc_tensor_free(square);
  if (rc != TC_OK) return rc;
  *n_outputs = 1;
  if (needs_input_grad[0]) { /* backward needs x */
    rc = tc_tensor_retain(inputs[0], &saved[0]);
    if (rc != TC_OK) return rc;
    *n_saved = 1;
  }
  return TC_OK;
}

static int32_t scaled_square_backward(void* context, const double* scalars, int64_t n_scalars,
                                      const tc_tensor* saved, int64_t n_saved, const tc_tensor* grad_outputs,
                                      int64_t n_outputs, const int32_t* needs_input_grad,
                                      tc_tensor* grad_inputs, int64_t n_inputs) {
  (void)context;
  (void)n_scalars;
  (void)n_saved;
  (void)n_outputs;
  (void)needs_input_grad;
  (void)n_inputs;
  tc_tensor x_grad = NULL;
  int32_t rc = tc_mul(saved[0], grad_outputs[0], &x_grad);
  if (rc != TC_OK) return rc;
  rc = tc_mul_scalar(x_grad, 2.0 * scalars[0], &grad_inputs[0]);
  tc_tensor_free(x_grad);
  return rc;
}

TC_OP_LIBRARY_EXPORT int32_t tc_op_library_init(const tc_op_registrar* reg, void* reg_ctx) {
  tc_op_def def = {0};
  def.size = sizeof def;
  def.abi_version = TC_OP_LIBRARY_ABI_VERSION;
  def.schema = "myops::scaled_square(Tensor x, float alpha) -> Tensor";
  def.forward = scaled_square_forward;
  def.backward = scaled_square_backward;
  return reg->register_op(reg_ctx, &def);
}
