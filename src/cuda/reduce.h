// CUDA kernels of the reductions, the softmax family and losses, and the
// indexing ops (src/cuda/reduce.cu). Plain C++ declarations over tc::Tensor:
// the ops reach them through CUDA's backend table (src/cuda/cuda_backend.cpp,
// src/backend/backend.h). Every tensor is on the same CUDA
// device; float16/bfloat16 compute in float, float32 sums accumulate in
// double as on the CPU. No float atomics: results are bitwise reproducible.
// An out-of-range index is found on the device and reported as TC_ERR_INDEX
// with the CPU's message.
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "math/reduce_kind.h"

namespace tc::cuda {

// The reduce kinds every backend shares (math/reduce_kind.h).
using Reduce = ::tc::ReduceKind;

// out (contiguous, new) has a's shape with the reduced dims set to 1; any
// strides for a. sum: out is a's dtype for floating a (times scale), int64
// otherwise; max/min: a's dtype, and inf_to_zero replaces an infinite result
// by 0 (logsumexp's shift). max/min need at least one element per output.
void reduce(Reduce op, const Tensor& out, const Tensor& a, double scale = 1.0, bool inf_to_zero = false);

// Along dim (0 for a 0-dim a): values (a's dtype, may be null) and int64
// indices of the first maximum/minimum, NaN first; both contiguous, a's shape
// with dim set to 1.
void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim);

// y (contiguous, new) = softmax or log_softmax of x along dim; x any strides.
void softmax(const Tensor& y, const Tensor& x, int64_t dim, bool log);
// gx (contiguous, new) from g and the forward's output y (same shape).
void softmax_backward(const Tensor& gx, const Tensor& g, const Tensor& y, int64_t dim, bool log);

// The position of the first index (int64, contiguous) outside [0, bound), or
// -1; and the value at a position. The ops turn them into the CPU's
// TC_ERR_INDEX messages.
int64_t first_out_of_range(const Tensor& index, int64_t bound);
int64_t read_index(const Tensor& index, int64_t pos);

// Rows of [N, C] logits x (any strides; a 1-D x is one row) and checked
// contiguous targets: probs (contiguous [N, C], new) = softmax, losses
// (float64 [N], new) = logsumexp - x[target].
void cross_entropy_forward(const Tensor& probs, const Tensor& losses, const Tensor& x, const Tensor& target);
// losses (float64 [N]) = -x[i, target[i]].
void nll_forward(const Tensor& losses, const Tensor& x, const Tensor& target);
// out (new): reduction NONE: [N] losses as out's dtype; MEAN/SUM: 0-dim.
void reduce_losses(const Tensor& out, const Tensor& losses, int32_t reduction);
// gx (contiguous [N, C], new) = (probs - onehot(target)) * g_i, where g_i is
// g[i] (NONE), g (SUM) or g / N (MEAN).
void cross_entropy_backward(const Tensor& gx, const Tensor& probs, const Tensor& target, const Tensor& g,
                            int32_t reduction);
// gx (contiguous [N, C], zeros) gets -g_i at [i, target[i]].
void nll_backward(const Tensor& gx, const Tensor& target, const Tensor& g, int32_t reduction);

// gather (index_select = false): out[p] = a[..., index[p], ...] along dim,
// index of out's shape; index_select (true): index 1-D (or 0-dim), out's dim
// size its length. out contiguous (new), a any strides, index contiguous and
// checked (first_out_of_range).
void index_gather(const Tensor& out, const Tensor& a, int64_t dim, const Tensor& index, bool index_select);
// The adjoint: gi (contiguous, zeros) += g scattered along dim at index (as
// above; the indices were checked by the forward). Each column is summed by
// one thread in index order: deterministic, and in the CPU's order.
void index_scatter_add(const Tensor& gi, const Tensor& g, int64_t dim, const Tensor& index,
                       bool index_select);

// out (int64 zeros [..., classes]) gets 1 at each (checked, contiguous) index.
void one_hot(const Tensor& out, const Tensor& index, int64_t classes);

// dst[...] = src[...] for two same-shaped, same-dtype tensors, any strides.
void strided_copy(const Tensor& dst, const Tensor& src);

}  // namespace tc::cuda
