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

namespace {

void check_reduction(int32_t reduction) {
  TC_CHECK(reduction == TC_REDUCTION_NONE || reduction == TC_REDUCTION_MEAN || reduction == TC_REDUCTION_SUM,
           TC_ERR_INVALID_ARGUMENT, "reduction must be TC_REDUCTION_NONE (0), MEAN (1) or SUM (2) but is ",
           reduction);
}

}  // namespace

extern "C" {

int32_t tc_matmul(tc_tensor a, tc_tensor b, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::matmul(get_tensor(a, "a"), get_tensor(b, "b")));
  });
}

int32_t tc_linear(tc_tensor x, tc_tensor weight, tc_tensor bias, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(
        tc::ops::linear(get_tensor(x, "x"), get_tensor(weight, "weight"), get_optional_tensor(bias, "bias")));
  });
}

int32_t tc_cross_entropy(tc_tensor logits, tc_tensor target, int32_t reduction, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    check_reduction(reduction);
    *out = new_handle(
        tc::ops::cross_entropy(get_tensor(logits, "logits"), get_tensor(target, "target"), reduction));
  });
}

int32_t tc_nll_loss(tc_tensor log_probs, tc_tensor target, int32_t reduction, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    check_reduction(reduction);
    *out = new_handle(
        tc::ops::nll_loss(get_tensor(log_probs, "log_probs"), get_tensor(target, "target"), reduction));
  });
}

int32_t tc_mse_loss(tc_tensor input, tc_tensor target, int32_t reduction, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    check_reduction(reduction);
    *out = new_handle(tc::ops::mse_loss(get_tensor(input, "input"), get_tensor(target, "target"), reduction));
  });
}

int32_t tc_dropout(tc_tensor a, double p, int32_t training, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::dropout(get_tensor(a, "a"), p, training != 0));
  });
}

int32_t tc_conv2d(tc_tensor x, tc_tensor weight, tc_tensor bias, const int64_t* stride,
                  const int64_t* padding, const int64_t* dilation, int64_t groups, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::conv2d(get_tensor(x, "x"), get_tensor(weight, "weight"),
                                      get_optional_tensor(bias, "bias"), in_ptr(stride, "stride"),
                                      in_ptr(padding, "padding"), in_ptr(dilation, "dilation"), groups));
  });
}

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

int32_t tc_embedding(tc_tensor weight, tc_tensor indices, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::embedding(get_tensor(weight, "weight"), get_tensor(indices, "indices")));
  });
}

}  // extern "C"
