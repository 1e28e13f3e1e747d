// Reductions: sum, mean, var/std, logsumexp, max/min (all, or along a dim with
// indices), argmax/argmin. The kernels (cpu/reduce.cpp) are deterministic; the
// backward formulas broadcast the output gradient back over the reduced dims.
// The kernels are the device backend's reduce/arg_reduce (src/backend/backend.h).
#include <cmath>

#include "autograd/engine.h"
#include "backend/backend.h"
#include "core/init.h"
#include "math/rows/compare_eq.h"
#include "math/rows/unary_exp.h"
#include "math/rows/unary_log.h"
#include "math/rows/unary_sqrt.h"
#include "math/scalar_op_enum.h"
#include "ops/internal.h"

namespace tc::ops {

using autograd::Grads;
using namespace detail;

namespace {

// The gradient of a reduction's output (shape `out`, keepdim or not) broadcast to
// the input's shape: reduced dims put back as size 1, then expanded.
Tensor expand_back(const Tensor& g, const Dims& keep_shape, const Dims& in_shape) {
  return bw_expand(bw_reshape(g, keep_shape), in_shape);
}

struct Reduced {
  Dims keep;  // input shape with reduced dims 1
  Dims out;   // keep, or with reduced dims removed
  bool marked[TC_MAX_DIMS];
  int64_t count;  // elements per output
};

Reduced plan(const Tensor& a, const Dims& dims, bool keepdim, const char* op) {
  Reduced r;
  r.keep = keepdim_shape(a, dims, op, r.marked);
  r.out = keepdim ? r.keep : squeeze_marked(r.keep, r.marked);
  // An element-less input may have huge sizes: an output too large to count is OOM.
  const int64_t outn = checked_numel(r.keep, op);
  r.count = outn == 0 ? 0 : a->numel() / outn;
  if (outn == 0) {  // the count of a reduction over dims of an empty tensor
    r.count = 1;
    for (int64_t d = 0; d < a->ndim(); ++d) {
      // Only a mean's divisor, of an element-less output: saturate instead of overflowing.
      if (r.marked[d] && __builtin_mul_overflow(r.count, a->shape[d], &r.count)) r.count = INT64_MAX;
    }
  }
  return r;
}

// The reduction kernel of a's device; out has a's shape with the reduced dims 1.
void reduce_kernel(ReduceKind op, const Tensor& out, const Tensor& a) {
  backend_for(a).reduce(op, out, a, 1.0, false);
}

void arg_reduce_kernel(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& a,
                       int64_t dim) {
  backend_for(a).arg_reduce(is_max, values, indices, a, dim);
}

Tensor out_view(const Tensor& out, const Reduced& r) {
  return r.out == r.keep ? out : make_view(out, r.out, contiguous_strides(r.out), 0);
}

Tensor reduce_into(ReduceKind op, const Tensor& a, const Reduced& r, DType out_dtype) {
  Tensor out = empty(r.keep, out_dtype, a->device);
  reduce_kernel(op, out, a);
  return out_view(out, r);
}

Tensor sum_nograd(const Tensor& a, const Reduced& r) {
  const DType out = is_floating(a->dtype) ? a->dtype : DType::i64;
  return reduce_into(ReduceKind::sum, a, r, out);
}

void check_reduce_input(const char* op, const Tensor& a, bool floating_only) {
  // A backend computing 16-bit floats reduces every dtype (accumulating in float).
  if (!backend_for(a).computes_half) {
    check_same_device(op, a, a);
    check_compute_dtype(op, "a", a->dtype, true);
  }
  TC_CHECK(!floating_only || is_floating(a->dtype), TC_ERR_DTYPE, op,
           ": expected a float32 or float64 tensor but got ", describe(a));
}

}  // namespace

Tensor sum(const Tensor& a, const Dims& dims, bool keepdim) {
  if (is_complex(a->dtype)) return complex_sum(a, dims, keepdim, false);
  check_reduce_input("sum", a, false);
  const Reduced r = plan(a, dims, keepdim, "sum");
  Tensor out = sum_nograd(a, r);
  const Dims keep = r.keep, in = a->shape;
  autograd::record_function(
      "SumBackward", {a}, {out}, {},
      [=](const Grads& g, const std::vector<Tensor>&) -> Grads { return {expand_back(g[0], keep, in)}; });
  return out;
}

Tensor mean(const Tensor& a, const Dims& dims, bool keepdim) {
  if (is_complex(a->dtype)) return complex_sum(a, dims, keepdim, true);
  check_reduce_input("mean", a, true);
  const Reduced r = plan(a, dims, keepdim, "mean");
  // The scale fused into the sum: one rounding for 16-bit floats.
  Tensor out = empty(r.keep, a->dtype, a->device);
  backend_for(a).reduce(ReduceKind::sum, out, a, 1.0 / double(r.count), false);
  out = out_view(out, r);
  const Dims keep = r.keep, in = a->shape;
  const double scale = 1.0 / double(r.count);
  autograd::record_function("MeanBackward", {a}, {out}, {},
                            [=](const Grads& g, const std::vector<Tensor>&) -> Grads {
                              return {expand_back(mul_scalar(g[0], scale), keep, in)};
                            });
  return out;
}

namespace {
// var and its pieces: the centred input and the divisor.
struct VarParts {
  Tensor centred;  // a - mean(a), broadcast
  Tensor var;      // in r.out shape
  double divisor;
};
VarParts var_parts(const Tensor& a, const Reduced& r, int64_t correction) {
  NoGradGuard ng;
  VarParts p;
  Tensor m = raw_reshape(mul_scalar(sum_nograd(a, r), 1.0 / double(r.count)), r.keep);
  p.centred = sub(a, m);
  p.divisor = std::max<double>(0.0, double(r.count - correction));
  Tensor sq = mul(p.centred, p.centred);
  p.var = binary_scalar(ScalarOp::div, sum_nograd(sq, r), p.divisor);
  return p;
}
// a - mean(a) over dims, recorded: var's and std's centred input under
// create_graph (the saved one carries no graph).
Tensor centred_recorded(const Tensor& a, const Dims& dims) { return sub(a, ops::mean(a, dims, true)); }
}  // namespace

Tensor var(const Tensor& a, const Dims& dims, int64_t correction, bool keepdim) {
  check_reduce_input("var", a, true);
  TC_CHECK(correction >= 0, TC_ERR_INVALID_ARGUMENT, "var: correction must be >= 0 but is ", correction);
  const Reduced r = plan(a, dims, keepdim, "var");
  VarParts p = var_parts(a, r, correction);
  Tensor out = p.var;
  const Dims keep = r.keep, in = a->shape;
  const double div = p.divisor;
  // a is saved too: under create_graph the centred input is recomputed from it
  // with recorded ops, so that the gradient is differentiable in a.
  autograd::record_function("VarBackward", {a}, {out}, {p.centred, a},
                            [=](const Grads& g, const std::vector<Tensor>& s) -> Grads {
                              // d var / d a = 2 (a - mean) / (N - correction)
                              const Tensor c = creating_graph() ? centred_recorded(s[1], dims) : s[0];
                              return {mul(c, mul_scalar(expand_back(g[0], keep, in), 2.0 / div))};
                            });
  return out;
}

Tensor std(const Tensor& a, const Dims& dims, int64_t correction, bool keepdim) {
  check_reduce_input("std", a, true);
  TC_CHECK(correction >= 0, TC_ERR_INVALID_ARGUMENT, "std: correction must be >= 0 but is ", correction);
  const Reduced r = plan(a, dims, keepdim, "std");
  VarParts p = var_parts(a, r, correction);
  Tensor out;
  {
    NoGradGuard ng;
    out = unary(row::sqrt, p.var);
  }
  const Dims keep = r.keep, in = a->shape;
  const double div = p.divisor;
  autograd::record_function("StdBackward", {a}, {out}, {p.centred, autograd::alias(out), a},
                            [=](const Grads& g, const std::vector<Tensor>& s) -> Grads {
                              // d std / d a = (a - mean) / ((N - correction) std); under
                              // create_graph both factors are recorded functions of a
                              const bool graph = creating_graph();
                              const Tensor c = graph ? centred_recorded(s[2], dims) : s[0];
                              const Tensor sd = autograd::output_with_graph(s[1]);
                              Tensor scale = binary_scalar(ScalarOp::div, ops::div(g[0], sd), div);
                              return {mul(c, expand_back(scale, keep, in))};
                            });
  return out;
}

Tensor logsumexp(const Tensor& a, const Dims& dims, bool keepdim) {
  check_reduce_input("logsumexp", a, true);
  const Reduced r = plan(a, dims, keepdim, "logsumexp");
  Tensor out;
  {
    NoGradGuard ng;
    // Shifted by the max so exp cannot overflow; an infinite max shifts by 0.
    Tensor m;
    if (a->numel() == 0) {
      m = zeros(r.keep, a->dtype, a->device);
    } else {
      m = empty(r.keep, a->dtype, a->device);
      backend_for(a).reduce(ReduceKind::max, m, a, 1.0, true);
    }
    Tensor e = unary(row::exp, sub(a, m));
    Tensor s = unary(row::log, raw_reshape(sum_nograd(e, r), r.keep));
    out = raw_reshape(add(s, m), r.out);
  }
  const Dims keep = r.keep;
  autograd::record_function("LogsumexpBackward", {a}, {out}, {a, autograd::alias(out)},
                            [=](const Grads& g, const std::vector<Tensor>& s) -> Grads {
                              // softmax(a) * g
                              const Tensor o = autograd::output_with_graph(s[1]);
                              Tensor p = unary(row::exp, sub(s[0], bw_reshape(o, keep)));
                              return {mul(p, bw_reshape(g[0], keep))};
                            });
  return out;
}

namespace {

Tensor extreme_all(const Tensor& a, bool is_max) {
  const char* op = is_max ? "max" : "min";
  check_reduce_input(op, a, false);
  TC_CHECK(a->numel() > 0, TC_ERR_SHAPE, op, ": cannot reduce an empty tensor (shape ", a->shape,
           ") without an identity");
  Tensor out = empty(Dims{}, a->dtype, a->device);
  Tensor keep = make_view(out, Dims::filled(a->ndim(), 1), Dims::filled(a->ndim(), 1), 0);
  reduce_kernel(is_max ? ReduceKind::max : ReduceKind::min, keep, a);
  autograd::record_function(is_max ? "MaxBackward" : "MinBackward", {a}, {out}, {a, autograd::alias(out)},
                            [](const Grads& g, const std::vector<Tensor>& s) -> Grads {
                              // Every element equal to the result shares the gradient evenly.
                              Tensor mask = to_dtype(binary(row::eq, s[0], s[1]), s[0]->dtype);
                              Tensor count = sum(mask, {}, false);
                              return {mul(mask, ops::div(g[0], count))};
                            });
  return out;
}

// Scatters g (shape of indices, keepdim) into zeros of in_shape at indices along dim.
Tensor scatter_grad(const Tensor& g, const Tensor& idx, const Dims& in_shape, int64_t dim);

std::pair<Tensor, Tensor> extreme_dim(const Tensor& a, int64_t dim, bool keepdim, bool is_max) {
  const char* op = is_max ? "max_dim" : "min_dim";
  check_reduce_input(op, a, false);
  const int64_t n = std::max<int64_t>(a->ndim(), 1);
  const int64_t d = wrap_dim(dim, n, op);
  TC_CHECK(a->ndim() == 0 || a->shape[d] > 0, TC_ERR_SHAPE, op, ": cannot reduce dim ", d,
           " of size 0 (shape ", a->shape, ")");
  Dims keep = a->shape;
  if (a->ndim() > 0) keep[d] = 1;
  Tensor values = empty(keep, a->dtype, a->device), indices = empty(keep, DType::i64, a->device);
  arg_reduce_kernel(is_max, values, indices, a, a->ndim() == 0 ? 0 : d);
  Dims out_shape = keep;
  if (!keepdim && a->ndim() > 0) out_shape.erase(d);
  Tensor v = keepdim ? values : make_view(values, out_shape, contiguous_strides(out_shape), 0);
  Tensor i = keepdim ? indices : make_view(indices, out_shape, contiguous_strides(out_shape), 0);
  const Dims in = a->shape;
  autograd::record_function(
      is_max ? "MaxBackward" : "MinBackward", {a}, {v}, {indices},
      [=](const Grads& g, const std::vector<Tensor>& s) -> Grads {
        const Tensor gk = bw_reshape(g[0], keep), idx = s[0];
        if (in.empty()) return {bw_reshape(g[0], in)};
        // Linear in g: under create_graph its own backward gathers at the indices.
        return {linear_of_grad("MaxBackwardBackward", gk, scatter_grad(gk, idx, in, d),
                               [idx, d](const Tensor& gg) { return gather(gg, d, idx); })};
      });
  return {v, i};
}

Tensor scatter_grad(const Tensor& g, const Tensor& idx, const Dims& in_shape, int64_t dim) {
  Tensor gi = zeros(in_shape, g->dtype, g->device);
  if (in_shape.empty()) {
    copy_into(gi, raw_reshape(g, in_shape));
    return gi;
  }
  backend_for(g).index_scatter_add(gi, g, dim, tc::contiguous(idx), false);
  return gi;
}

}  // namespace

// Exposed to shape.cpp (gather's backward).
namespace detail {
Tensor scatter_add_grad(const Tensor& g, const Tensor& idx, const Dims& in_shape, int64_t dim) {
  return scatter_grad(g, idx, in_shape, dim);
}
}  // namespace detail

Tensor max_all(const Tensor& a) { return extreme_all(a, true); }
Tensor min_all(const Tensor& a) { return extreme_all(a, false); }
std::pair<Tensor, Tensor> max_dim(const Tensor& a, int64_t dim, bool keepdim) {
  return extreme_dim(a, dim, keepdim, true);
}
std::pair<Tensor, Tensor> min_dim(const Tensor& a, int64_t dim, bool keepdim) {
  return extreme_dim(a, dim, keepdim, false);
}

namespace {
Tensor arg_extreme(const Tensor& a, int64_t dim, bool keepdim, bool is_max) {
  const char* op = is_max ? "argmax" : "argmin";
  check_reduce_input(op, a, false);
  if (dim == TC_DIM_ALL) {
    TC_CHECK(a->numel() > 0, TC_ERR_SHAPE, op, ": cannot reduce an empty tensor (shape ", a->shape, ")");
    Tensor flat = raw_reshape(a, Dims{a->numel()});
    Tensor idx = empty(Dims{1}, DType::i64, a->device);
    arg_reduce_kernel(is_max, nullptr, idx, flat, 0);
    const Dims shape = keepdim ? Dims::filled(a->ndim(), 1) : Dims{};
    return make_view(idx, shape, contiguous_strides(shape), 0);
  }
  NoGradGuard ng;
  return extreme_dim(a, dim, keepdim, is_max).second;
}
}  // namespace

Tensor sum_to_size(const Tensor& g, const Dims& shape) {
  if (g->shape == shape) return g;
  const int64_t lead = g->ndim() - shape.size();
  TC_CHECK(lead >= 0, TC_ERR_INTERNAL, "sum_to_size: gradient shape ", g->shape, " has fewer dims than ",
           shape);
  Dims keep = g->shape;
  for (int64_t i = 0; i < g->ndim(); ++i) {
    if (i < lead) {
      keep[i] = 1;
    } else {
      const int64_t s = shape[i - lead];
      TC_CHECK(s == g->shape[i] || s == 1, TC_ERR_INTERNAL, "sum_to_size: gradient shape ", g->shape,
               " does not broadcast from ", shape);
      keep[i] = s;
    }
  }
  Tensor out = empty(keep, g->dtype, g->device);
  reduce_kernel(ReduceKind::sum, out, g);
  return make_view(out, shape, contiguous_strides(shape), 0);
}

Tensor argmax(const Tensor& a, int64_t dim, bool keepdim) { return arg_extreme(a, dim, keepdim, true); }
Tensor argmin(const Tensor& a, int64_t dim, bool keepdim) { return arg_extreme(a, dim, keepdim, false); }

}  // namespace tc::ops
