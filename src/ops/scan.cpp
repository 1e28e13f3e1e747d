// Scans along a dim: cumprod, cummax/cummin (values and indices), logcumsumexp.
// The backend scans contiguous rows (ops/rows.h moves the dim last); cumprod's
// and logcumsumexp's gradients are backend row kernels too (O(n) per row,
// exact with zeros for cumprod, stable for logcumsumexp); cummax/cummin send
// the gradient to the index positions. cumsum lives in ops/transformer.cpp.
#include <limits>

#include "autograd/engine.h"
#include "backend/backend.h"
#include "core/init.h"
#include "math/rows/compare_eq.h"
#include "math/rows/unary_exp.h"
#include "ops/pick_grad.h"
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

// t's reversed cumulative sum along d (each element: the sum from it to the end), recorded.
Tensor reverse_cumsum(const Tensor& t, int64_t d) { return flip(cumsum(flip(t, {d}), d), {d}); }

// cumprod's gradient when x holds a zero, in recorded ops (PyTorch's
// cumprod_backward under grad mode): the gradient of x_k is the sum over j >=
// k of g_j times dy_j/dx_k = prod(x_0..x_k-1) prod(x_k+1..x_j), each formed
// with prod, cumprod and cat so that it differentiates again (O(n^2) per row;
// the cumprods of the slices take this path again when they hold a zero).
Tensor cumprod_grad_with_zeros(const Tensor& x, const Tensor& g, int64_t d) {
  const int64_t n = x->shape[size_t(d)];
  if (n == 1) return g;
  Dims one_shape = x->shape;
  one_shape[size_t(d)] = 1;
  const Tensor one = ones(one_shape, x->dtype, x->device);
  std::vector<Tensor> cols;
  cols.reserve(size_t(n));
  for (int64_t k = 0; k < n; ++k) {
    Tensor omitted;  // [.., n - k, ..]: dy_j/dx_k for j >= k
    if (k == 0) {
      omitted = cat({one, cumprod(narrow(x, d, 1, n - 1), d)}, d);
    } else {
      const Tensor until = prod(narrow(x, d, 0, k), {d}, true);
      omitted = k == n - 1 ? until : cat({until, mul(until, cumprod(narrow(x, d, k + 1, n - k - 1), d))}, d);
    }
    cols.push_back(sum(mul(narrow(g, d, k, n - k), omitted), {d}, true));
  }
  return cat(cols, d);
}

// cumprod's/logcumsumexp's gradient in recorded ops (create_graph) for input x
// and output y: cumprod's reverse_cumsum(g y) / x when x holds no zero (else
// cumprod_grad_with_zeros), logcumsumexp's sum over i >= j of g_i
// exp(x_j - y_i), shifted by x's max along d (a constant) so that neither
// exponential overflows for moderate ranges.
Tensor scan_grad_recorded(ScanKind kind, const Tensor& x, const Tensor& y, const Tensor& g, int64_t d) {
  if (x->ndim() == 0) return reshape(g, {});
  if (kind == ScanKind::prod) {
    bool has_zero = false;
    {
      NoGradGuard ng;
      Tensor z = any(binary(row::eq, x, scalar_tensor(0.0, x->dtype, x->device)), {}, false);
      has_zero = read_element(z, 0) != 0.0;
    }
    if (has_zero) return cumprod_grad_with_zeros(x, g, d);
    return ops::div(reverse_cumsum(mul(g, y), d), x);
  }
  Tensor m;
  {
    NoGradGuard ng;
    m = amax(x, {d}, true);
    // all -inf along d: any finite shift will do
    const Tensor ninf = scalar_tensor(-std::numeric_limits<double>::infinity(), x->dtype, x->device);
    m = where(binary(row::eq, m, ninf), scalar_tensor(0.0, x->dtype, x->device), m);
  }
  return mul(unary(row::exp, sub(x, m)), reverse_cumsum(mul(g, unary(row::exp, sub(m, y))), d));
}

// The gradient node of cumprod/logcumsumexp: the row kernel on saved rows.
void record_scan_backward(const char* name, ScanKind kind, const Tensor& a, const Tensor& out, const Rows& r,
                          const Tensor& y_rows) {
  const bool was_0d = a->ndim() == 0;
  const int64_t n = r.rows->shape[1];
  // a and the output are saved for the recorded formula under create_graph.
  autograd::record_function(
      name, {a}, {out}, {r.rows, y_rows, a, autograd::alias(out)},
      [kind, r, n, was_0d](const Grads& g, const std::vector<Tensor>& s) -> Grads {
        if (creating_graph())
          return {scan_grad_recorded(kind, s[2], autograd::output_with_graph(s[3]), g[0], r.dim)};
        Rows gr = to_rows(g[0], r.dim, "scan backward");
        Tensor gx = empty(s[0]->shape, s[0]->dtype, s[0]->device);
        if (gx->numel() > 0) backend_for(gx).scan_rows_backward(kind, gx, gr.rows, s[0], s[1]);
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
                                Tensor ii = was_0d ? reshaped(s[0], {1}) : s[0];
                                return {pick_grad(g[0], ii, shape, d, was_0d ? Dims{} : shape)};
                              });
  }
  return {values, indices};
}
}  // namespace

std::pair<Tensor, Tensor> cummax(const Tensor& a, int64_t dim) { return cum_extreme(a, dim, true); }
std::pair<Tensor, Tensor> cummin(const Tensor& a, int64_t dim) { return cum_extreme(a, dim, false); }

}  // namespace tc::ops
