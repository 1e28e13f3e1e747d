// Scans along a dim: cumprod, cummax/cummin (values and indices), logcumsumexp.
// The backend scans contiguous rows (ops/rows.h moves the dim last); cumprod's
// and logcumsumexp's gradients are backend row kernels too (O(n) per row,
// exact with zeros for cumprod, stable for logcumsumexp); cummax/cummin send
// the gradient to the index positions. cumsum lives in ops/transformer.cpp.
#include "backend/backend.h"
#include "core/init.h"
#include "ops/rows.h"

namespace tc::ops {

using autograd::Grads;
using namespace detail;

namespace {

// CPU and CUDA (src/cuda/sort_scan.cu); CUDA also computes 16-bit floats.
void check_scan_input(const char* op, const Tensor& a, bool allow_bool) {
  check_same_device(op, a, a, true);
  if (!backend_for(a).computes_half) check_compute_dtype(op, "a", a->dtype, allow_bool);
}

// The gradient node of cumprod/logcumsumexp: the row kernel on saved rows.
void record_scan_backward(const char* name, ScanKind kind, const Tensor& a, const Tensor& out, const Rows& r,
                          const Tensor& y_rows) {
  const bool was_0d = a->ndim() == 0;
  const int64_t n = r.rows->shape[1];
  autograd::record_function(name, {a}, {out}, {r.rows, y_rows},
                            [kind, r, n, was_0d](const Grads& g, const std::vector<Tensor>& s) -> Grads {
                              Rows gr = to_rows(g[0], r.dim, "scan backward");
                              Tensor gx = empty(s[0]->shape, s[0]->dtype, s[0]->device);
                              if (gx->numel() > 0)
                                backend_for(gx).scan_rows_backward(kind, gx, gr.rows, s[0], s[1]);
                              return {from_rows(gx, r, n, was_0d)};
                            });
}

}  // namespace

Tensor cumprod(const Tensor& a, int64_t dim) {
  const char* op = "cumprod";
  check_scan_input(op, a, true);
  // Integers and bools accumulate in int64, like PyTorch (and cumsum).
  const Tensor src = is_floating(a->dtype) ? a : tc::cast(a, DType::i64);
  Rows r = to_rows(src, dim, op);
  const int64_t n = r.rows->shape[1];
  Tensor y = empty(r.rows->shape, src->dtype, a->device);
  if (y->numel() > 0) backend_for(a).scan_rows(ScanKind::prod, y, nullptr, r.rows);
  Tensor out = from_rows(y, r, n, a->ndim() == 0);
  if (is_floating(a->dtype)) record_scan_backward("CumprodBackward", ScanKind::prod, a, out, r, y);
  return out;
}

Tensor logcumsumexp(const Tensor& a, int64_t dim) {
  const char* op = "logcumsumexp";
  check_scan_input(op, a, false);
  TC_CHECK(is_floating(a->dtype), TC_ERR_DTYPE, op, ": expected a float32 or float64 tensor but got ",
           describe(a));
  Rows r = to_rows(a, dim, op);
  const int64_t n = r.rows->shape[1];
  Tensor y = empty(r.rows->shape, a->dtype, a->device);
  if (y->numel() > 0) backend_for(a).scan_rows(ScanKind::logsumexp, y, nullptr, r.rows);
  Tensor out = from_rows(y, r, n, a->ndim() == 0);
  record_scan_backward("LogcumsumexpBackward", ScanKind::logsumexp, a, out, r, y);
  return out;
}

namespace {
std::pair<Tensor, Tensor> cum_extreme(const Tensor& a, int64_t dim, bool is_max) {
  const char* op = is_max ? "cummax" : "cummin";
  check_scan_input(op, a, true);
  Rows r = to_rows(a, dim, op);
  const int64_t n = r.rows->shape[1];
  const bool was_0d = a->ndim() == 0;
  Tensor y = empty(r.rows->shape, a->dtype, a->device), idx = empty(r.rows->shape, DType::i64, a->device);
  if (y->numel() > 0) backend_for(a).scan_rows(is_max ? ScanKind::max : ScanKind::min, y, idx, r.rows);
  Tensor values = from_rows(y, r, n, was_0d), indices = from_rows(idx, r, n, was_0d);
  if (is_floating(a->dtype)) {
    const Dims shape = a->ndim() == 0 ? Dims{1} : a->shape;
    const int64_t d = r.dim;
    autograd::record_function(is_max ? "CummaxBackward" : "CumminBackward", {a}, {values}, {indices},
                              [shape, d, was_0d](const Grads& g, const std::vector<Tensor>& s) -> Grads {
                                // Each output's gradient goes to the element it copied.
                                Tensor gg = was_0d ? reshaped(g[0], {1}) : g[0];
                                Tensor ii = was_0d ? reshaped(s[0], {1}) : s[0];
                                Tensor gx = scatter_add_grad(tc::contiguous_on_device(gg), ii, shape, d);
                                return {was_0d ? reshaped(gx, {}) : gx};
                              });
  }
  return {values, indices};
}
}  // namespace

std::pair<Tensor, Tensor> cummax(const Tensor& a, int64_t dim) { return cum_extreme(a, dim, true); }
std::pair<Tensor, Tensor> cummin(const Tensor& a, int64_t dim) { return cum_extreme(a, dim, false); }

}  // namespace tc::ops
