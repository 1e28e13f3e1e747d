// Small helpers shared by the linear-algebra and neural-network ops
// (linalg.cpp, nn.cpp, conv.cpp): argument checks with messages that name the
// op, and raw (never recorded) reshapes of freshly computed gradients.
#pragma once
#include <vector>

#include "autograd/node.h"
#include "core/error.h"
#include "core/tensor.h"

namespace tc::ops::detail {

// These ops compute on the CPU only; CUDA tensors get a clear "not yet".
inline void check_cpu(const Tensor& t, const char* op, const char* arg) {
  TC_CHECK(t->device == kCPU, TC_ERR_NOT_IMPLEMENTED, op, ": ", arg, " is on ", device_name(t->device),
           " but this op only runs on the CPU");
}
// float32/float64 input on the CPU.
inline void check_float(const Tensor& t, const char* op, const char* arg) {
  check_cpu(t, op, arg);
  TC_CHECK(t->dtype == DType::f32 || t->dtype == DType::f64, TC_ERR_DTYPE, op, ": ", arg,
           " must be float32 or float64 but is ", dtype_name(t->dtype));
}
inline void check_same_dtype(const Tensor& a, const Tensor& b, const char* op, const char* an,
                             const char* bn) {
  TC_CHECK(a->dtype == b->dtype, TC_ERR_DTYPE, op, ": ", an, " is ", dtype_name(a->dtype), " but ", bn,
           " is ", dtype_name(b->dtype), " (they must match)");
}
inline void check_ndim(const Tensor& t, int64_t ndim, const char* op, const char* arg) {
  TC_CHECK(t->ndim() == ndim, TC_ERR_SHAPE, op, ": ", arg, " must be ", ndim, "-D but has shape ", t->shape);
}

// t's data as a new shape (t contiguous, or a contiguous copy of it); no
// autograd: for results computed inside ops and backward nodes.
inline Tensor reshaped(const Tensor& t, const Dims& shape) {
  Tensor c = tc::contiguous(t);
  return make_view(c, shape, contiguous_strides(shape), c->offset);
}
// A view with the last two dims swapped (no copy, no autograd).
inline Tensor transposed_last2(const Tensor& t) {
  Dims shape = t->shape, strides = t->strides;
  const int64_t n = shape.size();
  std::swap(shape[n - 2], shape[n - 1]);
  std::swap(strides[n - 2], strides[n - 1]);
  return make_view(t, shape, strides, t->offset);
}

// The inputs that are defined (optional ones like bias may be null).
inline std::vector<Tensor> defined(std::initializer_list<Tensor> ts) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts)
    if (t) out.push_back(t);
  return out;
}
// Whether backward must compute the gradient of input i.
inline bool wants_grad(const autograd::Node& n, size_t i) { return i < n.next.size() && n.next[i].node; }

}  // namespace tc::ops::detail
