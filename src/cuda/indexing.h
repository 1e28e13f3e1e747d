// CUDA kernels of advanced indexing (src/backend/backend.h's index_offsets_gather,
// index_offsets_put, count_nonzero, nonzero); src/cuda/indexing.cu.
#pragma once
#include "core/tensor.h"
#include "math/index_put.h"

namespace tc::cuda {
void index_offsets_gather(const Tensor& out, const Tensor& a, const Tensor& offs);
void index_offsets_put(const Tensor& a, const Tensor& offs, const Tensor& values, IndexPutMode mode);
int64_t count_nonzero(const Tensor& a);
void nonzero(const Tensor& out, const Tensor& a);
}  // namespace tc::cuda
