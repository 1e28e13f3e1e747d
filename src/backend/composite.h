// add, sub, mul and mul_scalar for the generic forms of the primitives
// (backend_defaults.cpp, backend_norm_defaults.cpp), which are built from ops.
// libtc's ops::add and friends are out of line (ops/elementwise.cpp, so that
// ops/ops.h needs no row of the op table); the CUDA module compiles the
// generic forms too and reaches the ops only through its host table's
// ops::binary and ops::binary_scalar, so these call those.
#pragma once
#include "math/rows/binary_add.h"
#include "math/rows/binary_mul.h"
#include "math/rows/binary_sub.h"
#include "math/scalar_op_enum.h"
#include "ops/ops.h"

namespace tc::composite {

inline Tensor add(const Tensor& a, const Tensor& b) { return ops::binary(ops::row::add, a, b); }
inline Tensor sub(const Tensor& a, const Tensor& b) { return ops::binary(ops::row::sub, a, b); }
inline Tensor mul(const Tensor& a, const Tensor& b) { return ops::binary(ops::row::mul, a, b); }
inline Tensor mul_scalar(const Tensor& a, double s) { return ops::binary_scalar(ops::ScalarOp::mul, a, s); }

}  // namespace tc::composite
