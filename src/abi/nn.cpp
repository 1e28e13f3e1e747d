// The tc_* functions of the linear-algebra and neural-network ops: check
// handles and arguments, call the core (ops/linalg.cpp, nn.cpp, conv.cpp),
// hand out the result. Out-params are written last, only on success.
#include "abi/api.h"
#include "ops/ops.h"

using tc::api;
using tc::get_optional_tensor;
using tc::get_tensor;
using tc::in_ptr;
using tc::new_handle;
using tc::out_ptr;

extern "C" {

int32_t tc_max_pool2d(tc_tensor x, const int64_t* kernel, const int64_t* stride, const int64_t* padding,
                      tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    in_ptr(kernel, "kernel");
    // NULL stride means stride = kernel, as PyTorch's default.
    *out = new_handle(tc::ops::max_pool2d(get_tensor(x, "x"), kernel, stride ? stride : kernel,
                                          in_ptr(padding, "padding")));
  });
}

int32_t tc_avg_pool2d(tc_tensor x, const int64_t* kernel, const int64_t* stride, const int64_t* padding,
                      tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    in_ptr(kernel, "kernel");
    *out = new_handle(tc::ops::avg_pool2d(get_tensor(x, "x"), kernel, stride ? stride : kernel,
                                          in_ptr(padding, "padding")));
  });
}

}  // extern "C"
