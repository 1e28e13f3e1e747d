// The tc_* functions of the neural-network layers (ops/nn_layers.cpp): check
// handles and pointers, call the core, hand out the result. Out-params are
// written last, only on success.
#include "abi/api.h"
#include "ops/ops.h"

using tc::api;
using tc::get_optional_tensor;
using tc::get_tensor;
using tc::in_ptr;
using tc::new_handle;
using tc::new_handles;
using tc::out_ptr;
using tc::Tensor;

namespace {

// A pooling's values and, when indices is not NULL, its indices (both or none).
void write_pair(std::pair<Tensor, Tensor> r, tc_tensor* out, tc_tensor* indices) {
  if (!indices) {
    *out = new_handle(std::move(r.first));
    return;
  }
  tc_tensor hs[2];
  new_handles({r.first, r.second}, hs);
  *out = hs[0];
  *indices = hs[1];
}

}  // namespace

extern "C" {

int32_t tc_max_pool2d_with_indices(tc_tensor x, const int64_t* kernel, const int64_t* stride,
                                   const int64_t* padding, const int64_t* dilation, int32_t ceil_mode,
                                   tc_tensor* out, tc_tensor* indices) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    write_pair(tc::ops::max_pool2d_with_indices(get_tensor(x, "x"), in_ptr(kernel, "kernel"), stride,
                                                in_ptr(padding, "padding"), in_ptr(dilation, "dilation"),
                                                ceil_mode != 0),
               out, indices);
  });
}

int32_t tc_avg_pool2d_ex(tc_tensor x, const int64_t* kernel, const int64_t* stride, const int64_t* padding,
                         int32_t ceil_mode, int32_t count_include_pad, int64_t divisor_override,
                         tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::avg_pool2d_ex(get_tensor(x, "x"), in_ptr(kernel, "kernel"), stride,
                                             in_ptr(padding, "padding"), ceil_mode != 0,
                                             count_include_pad != 0, divisor_override));
  });
}

int32_t tc_adaptive_max_pool2d(tc_tensor x, const int64_t* output_size, tc_tensor* out, tc_tensor* indices) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    write_pair(tc::ops::adaptive_max_pool2d(get_tensor(x, "x"), in_ptr(output_size, "output_size")), out,
               indices);
  });
}

int32_t tc_adaptive_max_pool1d(tc_tensor x, int64_t output_size, tc_tensor* out, tc_tensor* indices) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    write_pair(tc::ops::adaptive_max_pool1d(get_tensor(x, "x"), output_size), out, indices);
  });
}

int32_t tc_interpolate(tc_tensor x, const int64_t* size, const double* scale_factors, int32_t mode,
                       int32_t align_corners, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::interpolate(get_tensor(x, "x"), in_ptr(size, "size"), scale_factors, mode,
                                           align_corners != 0));
  });
}

}  // extern "C"
