// CUDA kernels of the elementwise ops, casts and copies (src/cuda/elementwise.cu).
// The ops in src/ops/ check arguments, promote dtypes and allocate outputs;
// these only compute. Inputs broadcast to out's shape (stride 0), any
// strides, out may alias an input (in-place ops). Every tensor is on the same
// CUDA device. Kernels run on the default stream; a failed launch throws
// TC_ERR_DEVICE.
#pragma once
#include "core/tensor.h"
#include "math/op_kinds.h"

namespace tc::cuda {

// out = a (op) b. Arithmetic: a, b and out of one dtype (float types, integer
// types; maximum/minimum also bool). Comparisons: a and b of one dtype, out bool.
void binary(ops::BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b);
// out = a (op) s; a and out of one floating dtype.
void binary_scalar(ops::ScalarOp op, const Tensor& out, const Tensor& a, double s);
// out = op(a); one dtype (neg, abs, relu: integers too).
void unary(ops::UnaryOp op, const Tensor& out, const Tensor& a, double p, double q);
// out = a clamped to [lo, hi]; NaN = no bound; one numeric dtype.
void clamp(const Tensor& out, const Tensor& a, double lo, double hi);
// out = cond ? a : b; cond bool, a, b and out of one dtype.
void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);
// out = formula(g, x) or formula(g, x, y) (ew::Grad); one floating dtype.
void grad2(ew::Grad f, const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p);
void grad3(ew::Grad f, const Tensor& out, const Tensor& g, const Tensor& x, const Tensor& y);
// dst = src converted to dst's dtype (src broadcast to dst's shape); any dtypes.
void copy(const Tensor& dst, const Tensor& src);

}  // namespace tc::cuda
