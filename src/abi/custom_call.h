// What tc_function_apply and tc_op_call share: running a caller's forward
// callback over lent input handles, taking the outputs and saved tensors it
// wrote, and recording a CustomFunctionNode whose backward runs the caller's
// backward callback (tc.h's rules for callbacks and custom functions).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "abi/callbacks.h"
#include "autograd/hooks.h"

namespace tc {

// The caller's forward over lent handles: (inputs, needs_input_grad, outputs,
// n_outputs, saved, n_saved), as tc_function_forward without its context.
using CustomForwardCall =
    std::function<int32_t(const tc_tensor*, const int32_t*, tc_tensor*, int64_t*, tc_tensor*, int64_t*)>;
// The caller's backward over lent handles: (saved, n_saved, grad_outputs,
// n_outputs, needs_input_grad, grad_inputs, n_inputs).
using CustomBackwardCall = std::function<int32_t(const tc_tensor*, int64_t, const tc_tensor*, int64_t,
                                                 const int32_t*, tc_tensor*, int64_t)>;

struct CustomCall {
  std::string name;               // the node's name
  std::string what;               // "custom function 'f'", "op 'ns::f'": for messages
  CustomForwardCall forward;      // required
  CustomBackwardCall backward;    // empty: nothing recorded
  int64_t expected_outputs = -1;  // -1: any number
};

// Runs call.forward (grad mode off) over in and records a node when a
// backward is set and an input needs grad. Throws when the forward fails,
// misbehaves or makes more than cap outputs.
std::vector<Tensor> apply_custom(const CustomCall& call, const std::vector<Tensor>& in, int64_t cap);

}  // namespace tc
