// CPU reduction kernels. Results never depend on the thread count: every row is
// cut into fixed chunks reduced in a fixed order, and the chunks' partial results
// are combined in order, whichever thread computed them.
#pragma once
#include "core/tensor.h"
#include "math/reduce_kind.h"

namespace tc::cpu {

// The reduce kinds every backend shares (src/backend/backend.h).
using Reduce = ::tc::ReduceKind;

// out (contiguous, new) has a's shape with the reduced dims set to 1. sum: out is
// float32/float64 for floating a (float32 accumulates in double), int64 otherwise;
// max/min: out has a's dtype. a: any strides, f32/f64/integer/bool.
void reduce(Reduce op, const Tensor& out, const Tensor& a);

// Along dim: values (a's dtype; may be null) and int64 indices of the first
// maximum (or minimum; NaN counts as the maximum and the minimum, as in PyTorch).
// Both outputs are contiguous with a's shape and dim set to 1.
void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim);

}  // namespace tc::cpu
