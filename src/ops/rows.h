// The row form of the sort, scan and search ops: the backend's row primitives
// (src/backend/backend.h) work on a contiguous [R, n] tensor whose last dim is the
// op's dim. to_rows moves dim last and flattens the rest; from_rows undoes it.
// Neither records autograd (the ops record their own nodes).
#pragma once
#include "ops/internal.h"
#include "ops/nn_util.h"

namespace tc::ops::detail {

struct Rows {
  Tensor rows;      // contiguous [R, n]
  Dims perm;        // the permutation moving dim last
  Dims permuted;    // the shape after it
  int64_t dim = 0;  // the wrapped dim (0 for a 0-d input)
};

// a (0-d counts as [1]) with dim moved last, as contiguous [R, n].
inline Rows to_rows(const Tensor& a, int64_t dim, const char* op) {
  Rows r;
  const Tensor a1 = a->ndim() == 0 ? reshaped(a, {1}) : a;
  r.dim = wrap_dim(dim, a1->ndim(), op);
  for (int64_t i = 0; i < a1->ndim(); ++i)
    if (i != r.dim) r.perm.push_back(i);
  r.perm.push_back(r.dim);
  Tensor p = raw_permute(a1, r.perm);
  r.permuted = p->shape;
  const int64_t n = a1->shape[r.dim];
  r.rows = reshaped(tc::contiguous_on_device(p), {n == 0 ? 0 : p->numel() / n, n});
  return r;
}

// t ([R, n'] in the row layout, n' the new size of the last dim) back in the
// input's dim order, contiguous; shape0 when the input was 0-d.
inline Tensor from_rows(const Tensor& t, const Rows& r, int64_t n_new, bool was_0d) {
  if (was_0d) return reshaped(t, {});
  Dims shape = r.permuted;
  shape[shape.size() - 1] = n_new;
  Dims inv = Dims::filled(r.perm.size(), 0);
  for (int64_t i = 0; i < int64_t(r.perm.size()); ++i) inv[r.perm[i]] = i;
  return tc::contiguous_on_device(raw_permute(reshaped(t, shape), inv));
}

}  // namespace tc::ops::detail
