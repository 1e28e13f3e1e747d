// The gradient of values picked from a tensor at saved indices (sort, topk,
// kthvalue, median, mode, cummax/cummin): g scattered (added) into zeros at
// the indices. Under create_graph the result is recorded as a linear function
// of g whose own backward gathers at the indices, so that it can be
// differentiated again (the indices are constants, as in PyTorch).
#pragma once
#include "ops/internal.h"
#include "ops/nn_util.h"

namespace tc::ops::detail {

// g (any shape with idx's element count) as idx's shape, scattered into zeros
// of in_shape along dim d at idx, then viewed as out_shape.
inline Tensor pick_grad(const Tensor& g, const Tensor& idx, const Dims& in_shape, int64_t d,
                        const Dims& out_shape) {
  Tensor gx = scatter_add_grad(tc::contiguous_on_device(reshaped(g, idx->shape)), idx, in_shape, d);
  gx = reshaped(gx, out_shape);
  const Dims g_shape = g->shape;
  return linear_of_grad("PickBackwardBackward", g, gx, [idx, in_shape, d, g_shape](const Tensor& gg) {
    return reshape(gather(reshape(gg, in_shape), d, idx), g_shape);
  });
}

}  // namespace tc::ops::detail
