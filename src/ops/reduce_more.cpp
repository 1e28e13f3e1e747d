// More reductions over dims, like PyTorch's: prod (a row primitive; its
// gradient is the cumprod gradient of the last element, so zeros are exact),
// all/any/count_nonzero (comparisons and sums), amax/amin (the backend's
// max/min reduction; ties share the gradient), norm (composed forward, hand
// written backward with PyTorch's subgradient 0 at 0), var_mean/std_mean.
#include <cmath>

#include "autograd/engine.h"
#include "backend/backend.h"
#include "core/init.h"
#include "math/rows/compare_eq.h"
#include "math/rows/compare_ne.h"
#include "math/rows/unary_abs.h"
#include "math/rows/unary_sign.h"
#include "math/rows/unary_sqrt.h"
#include "math/scalar_op_enum.h"
#include "ops/rows.h"

namespace tc::ops {

using autograd::Grads;
using namespace detail;

namespace {

// CPU and CUDA (prod's row kernel is in src/cuda/sort_scan.cu; the others are
// composed of reductions and elementwise kernels). A backend computing 16-bit
// floats reduces every dtype.
void check_input(const char* op, const Tensor& a, bool allow_bool) {
  check_same_device(op, a, a, true);
  if (!backend_for(a).computes_half) check_compute_dtype(op, "a", a->dtype, allow_bool);
}

// A reduction's shapes: keep (reduced dims 1), out (keep or squeezed), and the
// permutation putting the kept dims first, reduced dims last.
struct Plan {
  Dims keep, out, perm;
  bool marked[TC_MAX_DIMS];
  int64_t rows = 1, n = 1;  // outputs, elements per output
};

Plan make_plan(const Tensor& a, const Dims& dims, bool keepdim, const char* op) {
  Plan p;
  p.keep = keepdim_shape(a, dims, op, p.marked);
  p.out = keepdim ? p.keep : squeeze_marked(p.keep, p.marked);
  // An element-less input may have sizes whose products overflow: too large to count is OOM.
  bool overflow = false;
  for (int64_t d = 0; d < a->ndim(); ++d)
    if (!p.marked[d]) {
      p.perm.push_back(d);
      overflow |= __builtin_mul_overflow(p.rows, a->shape[d], &p.rows);
    }
  for (int64_t d = 0; d < a->ndim(); ++d)
    if (p.marked[d]) {
      p.perm.push_back(d);
      overflow |= __builtin_mul_overflow(p.n, a->shape[d], &p.n);
    }
  TC_CHECK(!overflow, TC_ERR_OUT_OF_MEMORY, op, ": the shape ", a->shape, " is too large to reduce");
  return p;
}

// a as contiguous [rows, n] (kept dims first), and back.
Tensor plan_rows(const Tensor& a, const Plan& p) {
  if (a->ndim() == 0) return reshaped(a, {1, 1});
  return reshaped(tc::contiguous_on_device(raw_permute(a, p.perm)), {p.rows, p.n});
}
Tensor plan_unrows(const Tensor& r, const Plan& p, const Dims& in_shape) {
  if (in_shape.empty()) return reshaped(r, {});
  Dims permuted;
  for (int64_t d : p.perm) permuted.push_back(in_shape[d]);
  Dims inv = Dims::filled(p.perm.size(), 0);
  for (int64_t i = 0; i < int64_t(p.perm.size()); ++i) inv[p.perm[i]] = i;
  return tc::contiguous_on_device(raw_permute(reshaped(r, permuted), inv));
}

Tensor zero_like_scalar(const Tensor& a) { return scalar_tensor(0.0, a->dtype, a->device); }

// prod's gradient in recorded ops (create_graph): g * prod / x when x holds no
// zero; else each element's product of the others, from an n x n copy of
// every row with the diagonal set to 1 (exact with zeros, as PyTorch's
// prod_safe_zeros_backward). Null past 2^24 elements of that copy: the caller
// then uses its kernels and marks the result not differentiable.
Tensor prod_grad_recorded(const Tensor& x, const Tensor& y, const Tensor& g, const Plan& p) {
  if (x->ndim() == 0) return reshape(g, {});
  const Tensor gk = expand(reshape(g, p.keep), x->shape);
  bool has_zero = false;
  {
    NoGradGuard ng;
    has_zero = read_element(any(binary(row::eq, x, zero_like_scalar(x)), {}, false), 0) != 0.0;
  }
  if (!has_zero) return mul(gk, ops::div(expand(reshape(y, p.keep), x->shape), x));
  if (p.rows > 0 && p.n > 0 && p.n > (int64_t(1) << 24) / p.n / p.rows) return Tensor();
  Dims permuted;
  for (int64_t d : p.perm) permuted.push_back(x->shape[d]);
  const Tensor xr = expand(reshape(permute(x, p.perm), {p.rows, 1, p.n}), {p.rows, p.n, p.n});
  const Tensor diag = binary(row::ne, eye(p.n, p.n, x->dtype, x->device), zero_like_scalar(x));
  const Tensor others = prod(where(diag, scalar_tensor(1.0, x->dtype, x->device), xr), {2}, false);
  const Tensor gr = mul(others, reshape(g, {p.rows, 1}));
  Dims inv = Dims::filled(p.perm.size(), 0);
  for (int64_t i = 0; i < int64_t(p.perm.size()); ++i) inv[p.perm[i]] = i;
  return permute(reshape(gr, permuted), inv);
}

}  // namespace

Tensor prod(const Tensor& a, const Dims& dims, bool keepdim) {
  const char* op = "prod";
  check_input(op, a, true);
  const Plan p = make_plan(a, dims, keepdim, op);
  const DType dt = is_floating(a->dtype) ? a->dtype : DType::i64;
  Tensor rows = plan_rows(tc::cast(a, dt), p);
  Tensor out = empty({p.rows}, dt, a->device);
  if (p.rows > 0) backend_for(a).prod_rows(out, rows);
  out = reshaped(out, p.out);
  if (is_floating(a->dtype)) {
    const Dims in = a->shape;
    // a and the output are saved for the recorded formula under create_graph.
    autograd::record_function(
        "ProdBackward", {a}, {out}, {rows, a, autograd::alias(out)},
        [p, in](const Grads& g, const std::vector<Tensor>& s) -> Grads {
          if (creating_graph())
            if (Tensor r = prod_grad_recorded(s[1], autograd::output_with_graph(s[2]), g[0], p)) return {r};
          // d prod / d x_i is d y_{n-1} / d x_i of y = cumprod(x): the scan
          // gradient with g on the last element only handles zeros exactly.
          const Tensor& x = s[0];
          Tensor gx = zeros(x->shape, x->dtype, x->device);
          if (x->numel() == 0) return {plan_unrows(gx, p, in)};
          Tensor y = empty(x->shape, x->dtype, x->device);
          const Backend& be = backend_for(x);
          be.scan_rows(ScanKind::prod, y, nullptr, x);
          Tensor gl = zeros(x->shape, x->dtype, x->device);
          copy_into(raw_narrow(gl, 1, p.n - 1, 1), reshaped(g[0], {p.rows, 1}));
          be.scan_rows_backward(ScanKind::prod, gx, gl, x, y);
          Grads r{plan_unrows(gx, p, in)};
          autograd::not_differentiable(r);  // only under create_graph
          return r;
        });
  }
  return out;
}

namespace {
// all/any: the count of zeros (all) or non-zeros (any) over dims compared with 0.
Tensor all_any(const Tensor& a, const Dims& dims, bool keepdim, bool is_all) {
  const char* op = is_all ? "all" : "any";
  check_same_device(op, a, a, true);
  NoGradGuard ng;
  // 16-bit floats compare through float32 on the CPU.
  Tensor x = (a->dtype == DType::f16 || a->dtype == DType::bf16) ? tc::cast(a, DType::f32) : a;
  Tensor hits = binary(is_all ? row::eq : row::ne, x, zero_like_scalar(x));
  Tensor count = sum(hits, dims, keepdim);
  Tensor r = binary(is_all ? row::eq : row::ne, count, scalar_tensor(0.0, DType::i64, a->device));
  // PyTorch keeps uint8 for uint8 inputs.
  return a->dtype == DType::u8 ? tc::cast(r, DType::u8) : r;
}
}  // namespace

Tensor all(const Tensor& a, const Dims& dims, bool keepdim) { return all_any(a, dims, keepdim, true); }
Tensor any(const Tensor& a, const Dims& dims, bool keepdim) { return all_any(a, dims, keepdim, false); }

Tensor count_nonzero(const Tensor& a, const Dims& dims) {
  const char* op = "count_nonzero";
  check_same_device(op, a, a, true);
  NoGradGuard ng;
  Tensor x = (a->dtype == DType::f16 || a->dtype == DType::bf16) ? tc::cast(a, DType::f32) : a;
  return sum(binary(row::ne, x, zero_like_scalar(x)), dims, false);
}

namespace {
Tensor extreme(const Tensor& a, const Dims& dims, bool keepdim, bool is_max) {
  const char* op = is_max ? "amax" : "amin";
  check_input(op, a, true);
  const Plan p = make_plan(a, dims, keepdim, op);
  for (int64_t d = 0; d < a->ndim(); ++d)
    TC_CHECK(!p.marked[d] || a->shape[d] > 0, TC_ERR_SHAPE, op, ": expected reduction dim ", d,
             " to have non-zero size (shape ", a->shape, ")");
  Tensor out = empty(p.keep, a->dtype, a->device);
  if (out->numel() > 0) backend_for(a).reduce(is_max ? ReduceKind::max : ReduceKind::min, out, a, 1.0, false);
  out = reshaped(out, p.out);
  if (is_floating(a->dtype)) {
    const Dims keep = p.keep;
    Dims rdims;
    for (int64_t d = 0; d < a->ndim(); ++d)
      if (p.marked[d]) rdims.push_back(d);
    autograd::record_function(is_max ? "AmaxBackward" : "AminBackward", {a}, {out}, {a, autograd::alias(out)},
                              [keep, rdims](const Grads& g, const std::vector<Tensor>& s) -> Grads {
                                // The tied extremes share the gradient evenly, like PyTorch.
                                // (the mask is constant: under create_graph only g carries a graph)
                                Tensor mask =
                                    to_dtype(binary(row::eq, s[0], raw_reshape(s[1], keep)), s[0]->dtype);
                                Tensor count = sum(mask, rdims, true);
                                return {mul(mask, ops::div(bw_reshape(g[0], keep), count))};
                              });
  }
  return out;
}
}  // namespace

Tensor amax(const Tensor& a, const Dims& dims, bool keepdim) { return extreme(a, dims, keepdim, true); }
Tensor amin(const Tensor& a, const Dims& dims, bool keepdim) { return extreme(a, dims, keepdim, false); }

std::pair<Tensor, Tensor> aminmax(const Tensor& a, int64_t dim, bool keepdim) {
  const Dims dims = dim == TC_DIM_ALL ? Dims{} : Dims{dim};
  return {amin(a, dims, keepdim), amax(a, dims, keepdim)};
}

Tensor norm(const Tensor& a, double p, const Dims& dims, bool keepdim) {
  const char* op = "norm";
  check_same_device(op, a, a, true);
  TC_CHECK(a->dtype == DType::f32 || a->dtype == DType::f64, TC_ERR_DTYPE, op,
           ": expected a float32 or float64 tensor but got ", describe(a));
  TC_CHECK(!std::isnan(p), TC_ERR_INVALID_ARGUMENT, op, ": p must not be NaN");
  Plan pl = make_plan(a, dims, keepdim, op);
  Dims rdims;
  for (int64_t d = 0; d < a->ndim(); ++d)
    if (pl.marked[d]) rdims.push_back(d);
  Tensor out;
  {
    NoGradGuard ng;
    Tensor ab = unary(row::abs, a);
    if (p == 2.0) {
      out = unary(row::sqrt, sum(mul(a, a), dims, keepdim));
    } else if (p == 1.0) {
      out = sum(ab, dims, keepdim);
    } else if (std::isinf(p)) {
      out = extreme(ab, dims, keepdim, p > 0);
    } else if (p == 0.0) {
      out = tc::cast(sum(binary(row::ne, a, zero_like_scalar(a)), dims, keepdim), a->dtype);
    } else {
      out = binary_scalar(ScalarOp::pow, sum(binary_scalar(ScalarOp::pow, ab, p), dims, keepdim), 1.0 / p);
    }
  }
  const Dims keep = pl.keep;
  autograd::record_function(
      "NormBackward", {a}, {out}, {a, autograd::alias(out)},
      [p, keep, rdims](const Grads& g, const std::vector<Tensor>& s) -> Grads {
        const Tensor& x = s[0];
        // Under create_graph the output is read with its graph, so that the
        // formula (recorded ops otherwise) differentiates through it too.
        const Tensor n = bw_reshape(autograd::output_with_graph(s[1]), keep), gk = bw_reshape(g[0], keep);
        const Tensor zero = zero_like_scalar(x);
        if (p == 0.0) return {zeros(x->shape, x->dtype, x->device)};
        const Tensor sgn = unary(row::sign, x);
        if (p == 1.0) return {mul(sgn, gk)};
        if (std::isinf(p)) {
          // The elements reaching the norm share the gradient evenly.
          Tensor mask = to_dtype(binary(row::eq, unary(row::abs, x), n), x->dtype);
          return {mul(mul(sgn, mask), ops::div(gk, sum(mask, rdims, true)))};
        }
        const Tensor n_is_0 = binary(row::eq, n, zero);
        if (p == 2.0) return {mul(x, where(n_is_0, zero, ops::div(gk, n)))};
        // sgn(x) |x|^(p-1) (0 at x = 0) times g / norm^(p-1) (0 where the norm is 0).
        Tensor scaled = where(binary(row::eq, x, zero), zero,
                              mul(sgn, binary_scalar(ScalarOp::pow, unary(row::abs, x), p - 1.0)));
        Tensor scale = where(n_is_0, zero, ops::div(gk, binary_scalar(ScalarOp::pow, n, p - 1.0)));
        return {mul(scaled, scale)};
      });
  return out;
}

std::pair<Tensor, Tensor> var_mean(const Tensor& a, const Dims& dims, int64_t correction, bool keepdim) {
  Tensor v = var(a, dims, correction, keepdim);
  return {v, mean(a, dims, keepdim)};
}

std::pair<Tensor, Tensor> std_mean(const Tensor& a, const Dims& dims, int64_t correction, bool keepdim) {
  Tensor s = std(a, dims, correction, keepdim);
  return {s, mean(a, dims, keepdim)};
}

}  // namespace tc::ops
