// sum_to_size for backward formulas: the recorded form (a sum over the
// broadcast dims, then a reshape) under create_graph, so that the gradient
// stays differentiable; the raw reduction otherwise.
#pragma once
#include "core/init.h"
#include "ops/ops.h"

namespace tc::ops::detail {

// t summed over the dims that broadcasting added or expanded to give shape.
inline Tensor sum_to_recorded(const Tensor& t, const Dims& shape) {
  if (t->shape == shape) return t;
  const int64_t lead = t->ndim() - int64_t(shape.size());
  Dims dims;
  for (int64_t i = 0; i < t->ndim(); ++i)
    if (i < lead || (shape[i - lead] == 1 && t->shape[i] != 1)) dims.push_back(i);
  return reshape(dims.empty() ? t : sum(t, dims, true), shape);
}

inline Tensor bw_sum_to_size(const Tensor& t, const Dims& shape) {
  return grad_enabled() ? sum_to_recorded(t, shape) : sum_to_size(t, shape);
}

}  // namespace tc::ops::detail
