// The fused batch_norm and group_norm (src/ops/norm_layers.cpp), called by
// the ops of src/ops/nn_layers.cpp once they have checked the arguments:
// x [N, C, *] float, w, b, running_mean, running_var [C] of x's dtype and
// device or null (the running statistics both or neither; eval: both).
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace tc::ops::detail {

// Batch statistics (more than one value per channel); the running
// statistics, if given, get momentum times the batch's (unbiased variance).
Tensor batch_norm_train(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& running_mean,
                        const Tensor& running_var, double momentum, double eps);
// The running statistics normalize.
Tensor batch_norm_eval(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& running_mean,
                       const Tensor& running_var, double eps);
// groups divides C.
Tensor group_norm_fused(const Tensor& x, int64_t groups, const Tensor& w, const Tensor& b, double eps);

}  // namespace tc::ops::detail
