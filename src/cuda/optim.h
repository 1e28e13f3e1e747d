// Fused optimizer steps on CUDA parameters (src/cuda/optim.cu): one kernel
// launch per parameter, the per-element math of src/math/optim_math.h.
#pragma once
#include "core/tensor.h"
#include "math/optim_math.h"

namespace tc::cuda {

// w, g (and buf / m, v): contiguous float32 or float64 tensors of one dtype
// and numel on one CUDA device; buf may be null (no momentum).
void sgd_step(const Tensor& w, const Tensor& g, const Tensor& buf, const optim::SgdStep& s);
void adam_step(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v, const optim::AdamStep& s);
// src/cuda/optim_steps.cu: gavg and buf may be null.
void rmsprop_step(const Tensor& w, const Tensor& g, const Tensor& sq, const Tensor& gavg, const Tensor& buf,
                  const optim::RmspropStep& s);
void adagrad_step(const Tensor& w, const Tensor& g, const Tensor& sum, const optim::AdagradStep& s);

}  // namespace tc::cuda
