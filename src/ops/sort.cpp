// Sorting and searching: sort/argsort (always stable), the order statistics
// kthvalue, median (global and along a dim) and mode, unique (flattened) and
// searchsorted. The backend's row primitives do the work on contiguous rows
// (ops/rows.h moves the dim last); the gradients of the value-returning ops go
// to the positions their indices name, like max_dim's and topk's.
#include "backend/backend.h"
#include "core/init.h"
#include "ops/pick_grad.h"
#include "ops/rows.h"

namespace tc::ops {

using autograd::Grads;
using namespace detail;

namespace {

// CPU and CUDA (src/cuda/sort_scan.cu); CUDA also computes 16-bit floats.
void check_sort_input(const char* op, const Tensor& a, bool allow_bool) {
  check_same_device(op, a, a, true);
  if (!backend_for(a).computes_half) check_compute_dtype(op, "a", a->dtype, allow_bool);
}

// Records the gradient of values taken from a at indices along dim d (both of
// the same shape, 0-d when a is).
void record_pick_backward(const char* name, const Tensor& a, const Tensor& values, const Tensor& indices,
                          int64_t d, const Dims& keep_shape) {
  if (!is_floating(a->dtype)) return;
  const bool was_0d = a->ndim() == 0;
  const Dims shape = was_0d ? Dims{1} : a->shape;
  const Dims keep = was_0d ? Dims{1} : keep_shape;
  autograd::record_function(
      name, {a}, {values}, {indices},
      [shape, keep, d, was_0d](const Grads& g, const std::vector<Tensor>& s) -> Grads {
        return {pick_grad(g[0], reshaped(s[0], keep), shape, d, was_0d ? Dims{} : shape)};
      });
}

// values/indices [R] of the rows' picks, as a's shape with dim d kept (1) or removed.
std::pair<Tensor, Tensor> picks_out(const Tensor& v, const Tensor& i, const Rows& r, const Tensor& a,
                                    bool keepdim, Dims& keep) {
  const bool was_0d = a->ndim() == 0;
  Tensor vk = from_rows(v, r, 1, was_0d), ik = from_rows(i, r, 1, was_0d);
  keep = vk->shape;
  if (keepdim || was_0d) return {vk, ik};
  Dims out = keep;
  out.erase(r.dim);
  return {reshaped(vk, out), reshaped(ik, out)};
}

std::pair<Tensor, Tensor> kth_dim(const char* op, const Tensor& a, int64_t k, int64_t dim, bool keepdim,
                                  bool median, const char* grad_name) {
  check_sort_input(op, a, false);
  Rows r = to_rows(a, dim, op);
  const int64_t n = r.rows->shape[1];
  TC_CHECK(n > 0, TC_ERR_SHAPE, op, ": cannot take an order statistic of dim ", r.dim, " of size 0 (shape ",
           a->shape, ")");
  if (median) k = (n - 1) / 2;
  TC_CHECK(k >= 0 && k < n, TC_ERR_INVALID_ARGUMENT, op, ": k = ", k + 1, " is out of range for dim ", r.dim,
           " of size ", n);
  const int64_t rows = r.rows->shape[0];
  Tensor v = empty({rows, 1}, a->dtype, a->device), i = empty({rows, 1}, DType::i64, a->device);
  if (rows > 0) backend_for(a).kth_rows(v, i, r.rows, k, median);
  Dims keep;
  auto [vo, io] = picks_out(v, i, r, a, keepdim, keep);
  record_pick_backward(grad_name, a, vo, io, r.dim, keep);
  return {vo, io};
}

}  // namespace

std::pair<Tensor, Tensor> sort(const Tensor& a, int64_t dim, bool descending) {
  const char* op = "sort";
  check_sort_input(op, a, true);
  Rows r = to_rows(a, dim, op);
  const int64_t n = r.rows->shape[1];
  const bool was_0d = a->ndim() == 0;
  Tensor v = empty(r.rows->shape, a->dtype, a->device), i = empty(r.rows->shape, DType::i64, a->device);
  if (v->numel() > 0) backend_for(a).sort_rows(v, i, r.rows, descending);
  Tensor values = from_rows(v, r, n, was_0d), indices = from_rows(i, r, n, was_0d);
  record_pick_backward("SortBackward", a, values, indices, r.dim, was_0d ? Dims{} : a->shape);
  return {values, indices};
}

Tensor argsort(const Tensor& a, int64_t dim, bool descending) {
  NoGradGuard ng;
  return sort(a, dim, descending).second;
}

std::pair<Tensor, Tensor> kthvalue(const Tensor& a, int64_t k, int64_t dim, bool keepdim) {
  // k counts from 1; checked here so that k - 1 cannot overflow (k = INT64_MIN).
  TC_CHECK(k >= 1, TC_ERR_INVALID_ARGUMENT, "kthvalue: k = ", k, " is out of range (k counts from 1)");
  return kth_dim("kthvalue", a, k - 1, dim, keepdim, false, "KthvalueBackward");
}

std::pair<Tensor, Tensor> median_dim(const Tensor& a, int64_t dim, bool keepdim) {
  return kth_dim("median_dim", a, 0, dim, keepdim, true, "MedianBackward");
}

Tensor median(const Tensor& a) {
  const char* op = "median";
  check_sort_input(op, a, false);
  TC_CHECK(a->numel() > 0, TC_ERR_SHAPE, op, ": cannot take the median of an empty tensor (shape ", a->shape,
           ")");
  Tensor flat = reshaped(a, {1, a->numel()});
  Tensor v = empty({1, 1}, a->dtype, a->device), i = empty({1, 1}, DType::i64, a->device);
  backend_for(a).kth_rows(v, i, flat, (a->numel() - 1) / 2, true);
  Tensor out = reshaped(v, {});
  if (is_floating(a->dtype)) {
    const Dims in = a->shape;
    const int64_t numel = a->numel();
    autograd::record_function("MedianBackward", {a}, {out}, {i},
                              [in, numel](const Grads& g, const std::vector<Tensor>& s) -> Grads {
                                return {pick_grad(g[0], reshaped(s[0], {1}), {numel}, 0, in)};
                              });
  }
  return out;
}

std::pair<Tensor, Tensor> mode(const Tensor& a, int64_t dim, bool keepdim) {
  const char* op = "mode";
  check_sort_input(op, a, false);
  Rows r = to_rows(a, dim, op);
  const int64_t n = r.rows->shape[1], rows = r.rows->shape[0];
  TC_CHECK(n > 0, TC_ERR_SHAPE, op, ": cannot take the mode of dim ", r.dim, " of size 0 (shape ", a->shape,
           ")");
  Tensor v = empty({rows, 1}, a->dtype, a->device), i = empty({rows, 1}, DType::i64, a->device);
  if (rows > 0) backend_for(a).mode_rows(v, i, r.rows);
  Dims keep;
  auto [vo, io] = picks_out(v, i, r, a, keepdim, keep);
  record_pick_backward("ModeBackward", a, vo, io, r.dim, keep);
  return {vo, io};
}

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& a) {
  const char* op = "unique";
  check_sort_input(op, a, true);
  NoGradGuard ng;
  const int64_t n = a->numel();
  Tensor flat = reshaped(a, {1, n});
  Tensor sorted = empty({1, n}, a->dtype, a->device), order = empty({1, n}, DType::i64, a->device);
  Tensor values = empty({n}, a->dtype, a->device), inverse = empty({n}, DType::i64, a->device),
         counts = empty({n}, DType::i64, a->device);
  int64_t u = 0;
  if (n > 0) {
    const Backend& be = backend_for(a);
    be.sort_rows(sorted, order, flat, false);
    u = be.unique_sorted(values, inverse, counts, sorted, order);
  }
  // The distinct values and counts are the first u entries.
  return {tc::contiguous_on_device(raw_narrow(values, 0, 0, u)), reshaped(inverse, a->shape),
          tc::contiguous_on_device(raw_narrow(counts, 0, 0, u))};
}

Tensor searchsorted(const Tensor& seq, const Tensor& values, bool right, bool out_int32) {
  const char* op = "searchsorted";
  check_sort_input(op, seq, false);
  check_same_device(op, seq, values, true);
  if (!backend_for(values).computes_half) check_compute_dtype(op, "values", values->dtype, false);
  TC_CHECK(seq->ndim() >= 1, TC_ERR_SHAPE, op, ": sorted_sequence must have at least 1 dim but has shape ",
           seq->shape);
  const bool one_row = seq->ndim() == 1;
  if (!one_row) {
    bool same = values->ndim() == seq->ndim();
    for (int64_t d = 0; same && d + 1 < seq->ndim(); ++d) same = seq->shape[d] == values->shape[d];
    TC_CHECK(same, TC_ERR_SHAPE, op, ": sorted_sequence of shape ", seq->shape, " and values of shape ",
             values->shape,
             " must have the same leading dims (all but the last), or sorted_sequence must be 1-D");
  }
  NoGradGuard ng;
  // Both compare in their common dtype, like PyTorch.
  const DType dt = result_type({seq, values});
  const int64_t m = seq->shape[seq->ndim() - 1];
  int64_t s_rows = 1;
  for (int64_t d = 0; d + 1 < seq->ndim(); ++d)
    TC_CHECK(!__builtin_mul_overflow(s_rows, seq->shape[d], &s_rows), TC_ERR_OUT_OF_MEMORY, op,
             ": sorted_sequence's shape ", seq->shape, " is too large");
  Tensor s = reshaped(tc::cast(seq, dt), {s_rows, m});
  const int64_t k = values->ndim() == 0 ? 1 : values->shape[values->ndim() - 1];
  const int64_t rows = k == 0 ? 0 : values->numel() / k;
  Tensor v = reshaped(tc::cast(values, dt), {rows, k});
  Tensor out = empty({rows, k}, out_int32 ? DType::i32 : DType::i64, values->device);
  if (out->numel() > 0) backend_for(values).searchsorted(out, s, v, right);
  return reshaped(out, values->shape);
}

}  // namespace tc::ops
