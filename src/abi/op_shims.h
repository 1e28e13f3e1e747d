// The bodies of the ABI shims: one tensor in and one out (op1), and the
// elementwise families' shims, which src/abi/ops_generated.cpp (generated from
// ops/ops.toml) calls with the op and __func__: check handles, call the core,
// hand out the result only on success.
#pragma once
#include "abi/api.h"
#include "ops/ops.h"

namespace tc::abi {

template <typename F>
int32_t op1(const char* fn, tc_tensor a, tc_tensor* out, F&& f) {
  return api(fn, [&] {
    out_ptr(out, "out");
    Tensor r = f(get_tensor(a, "a"));
    *out = new_handle(std::move(r));
  });
}

inline int32_t binary(const char* fn, ops::BinaryOp op, tc_tensor a, tc_tensor b, tc_tensor* out) {
  return api(fn, [&] {
    out_ptr(out, "out");
    Tensor r = ops::binary(op, get_tensor(a, "a"), get_tensor(b, "b"));
    *out = new_handle(std::move(r));
  });
}

inline int32_t scalar(const char* fn, ops::ScalarOp op, tc_tensor a, double s, tc_tensor* out) {
  return op1(fn, a, out, [&](const Tensor& x) { return ops::binary_scalar(op, x, s); });
}

// a (op) s, a comparison with a double (tc_eq_scalar, ...).
inline int32_t compare_scalar(const char* fn, ops::BinaryOp op, tc_tensor a, double s, tc_tensor* out) {
  return op1(fn, a, out, [&](const Tensor& x) { return ops::compare_scalar(op, x, s); });
}

inline int32_t unary(const char* fn, ops::UnaryOp op, tc_tensor a, tc_tensor* out) {
  return op1(fn, a, out, [&](const Tensor& x) { return ops::unary(op, x); });
}

// A unary op with double parameters (p, q; unused ones 0).
inline int32_t unary(const char* fn, ops::UnaryOp op, tc_tensor a, double p, double q, tc_tensor* out) {
  return op1(fn, a, out, [&](const Tensor& x) { return ops::unary(op, x, p, q); });
}

}  // namespace tc::abi
