// tc_* shims of the composed binary ops (ops/binary_ext.cpp): check
// handles and arguments, call the core, hand out the result only on success.
#include "abi/op_shims.h"

using namespace tc;

TC_API int32_t tc_isclose(tc_tensor a, tc_tensor b, double rtol, double atol, int32_t equal_nan,
                          tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    Tensor r = ops::isclose(get_tensor(a, "a"), get_tensor(b, "b"), rtol, atol, equal_nan != 0);
    *out = new_handle(std::move(r));
  });
}

TC_API int32_t tc_lerp(tc_tensor start, tc_tensor end, tc_tensor weight, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    Tensor r = ops::lerp(get_tensor(start, "start"), get_tensor(end, "end"), get_tensor(weight, "weight"));
    *out = new_handle(std::move(r));
  });
}

TC_API int32_t tc_lerp_scalar(tc_tensor start, tc_tensor end, double weight, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    Tensor r = ops::lerp_scalar(get_tensor(start, "start"), get_tensor(end, "end"), weight);
    *out = new_handle(std::move(r));
  });
}

TC_API int32_t tc_addcmul(tc_tensor input, tc_tensor tensor1, tc_tensor tensor2, double value,
                          tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    Tensor r = ops::addcmul(get_tensor(input, "input"), get_tensor(tensor1, "tensor1"),
                            get_tensor(tensor2, "tensor2"), value);
    *out = new_handle(std::move(r));
  });
}

TC_API int32_t tc_addcdiv(tc_tensor input, tc_tensor tensor1, tc_tensor tensor2, double value,
                          tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    Tensor r = ops::addcdiv(get_tensor(input, "input"), get_tensor(tensor1, "tensor1"),
                            get_tensor(tensor2, "tensor2"), value);
    *out = new_handle(std::move(r));
  });
}

TC_API int32_t tc_prelu(tc_tensor input, tc_tensor weight, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    Tensor r = ops::prelu(get_tensor(input, "input"), get_tensor(weight, "weight"));
    *out = new_handle(std::move(r));
  });
}

TC_API int32_t tc_glu(tc_tensor input, int64_t dim, tc_tensor* out) {
  return abi::op1(__func__, input, out, [&](const Tensor& x) { return ops::glu(x, dim); });
}
