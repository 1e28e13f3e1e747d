// CUDA kernels of the sort, scan and search row primitives
// (src/cuda/sort_scan.cu): the CUDA forms of Backend::sort_rows, prod_rows,
// kth_rows, mode_rows, scan_rows, scan_rows_backward, unique_sorted and
// searchsorted (src/backend/backend.h documents each). Every operand is contiguous
// and on one CUDA device.
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "math/reduce_kind.h"

namespace tc::cuda {

void sort_rows(const Tensor& values, const Tensor& indices, const Tensor& a, bool descending);
void prod_rows(const Tensor& out, const Tensor& a);
void kth_rows(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k, bool nan_first);
void mode_rows(const Tensor& values, const Tensor& indices, const Tensor& a);
void scan_rows(ScanKind kind, const Tensor& out, const Tensor& indices, const Tensor& a);
void scan_rows_backward(ScanKind kind, const Tensor& gx, const Tensor& g, const Tensor& a, const Tensor& y);
int64_t unique_sorted(const Tensor& values, const Tensor& inverse, const Tensor& counts, const Tensor& sorted,
                      const Tensor& order);
void searchsorted(const Tensor& out, const Tensor& seq, const Tensor& values, bool right);

}  // namespace tc::cuda
