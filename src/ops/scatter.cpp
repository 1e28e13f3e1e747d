// The scatter family (scatter, scatter_add, scatter_reduce, index_add,
// index_copy, index_fill), made of advanced indexing (src/ops/indexing.cpp):
// scatter along dim is index_put with index at dim and the position itself
// (an arange) at every other dim, so one pair of gather/put kernels serves
// them all and index_put's gradients are theirs. scatter_reduce's backward
// follows PyTorch's formulas (amax/amin split among ties; prod with zeros).
#include <cmath>
#include <limits>

#include "autograd/engine.h"
#include "backend/backend.h"
#include "core/init.h"
#include "math/rows/compare_eq.h"
#include "math/rows/compare_gt.h"
#include "math/rows/compare_ne.h"
#include "math/rows/unary_floor.h"
#include "ops/indexing.h"
#include "ops/internal.h"
#include "ops/nn_util.h"

namespace tc::ops {

using autograd::Grads;
using namespace detail;

namespace {

void check_index_dtype(const char* op, const Tensor& index, bool allow_int32) {
  TC_CHECK(index->dtype == DType::i64 || (allow_int32 && index->dtype == DType::i32), TC_ERR_DTYPE, op,
           ": index must be an int64", allow_int32 ? " or int32" : "", " tensor but is ", describe(index));
}

// Scatter's index positions as indices of every dim: index at dim, the
// position itself elsewhere (arange, broadcasting over index's shape).
std::vector<Tensor> scatter_coords(const Tensor& a, int64_t d, const Tensor& index) {
  std::vector<Tensor> c(size_t(a->ndim()));
  for (int64_t k = 0; k < a->ndim(); ++k) {
    if (k == d) {
      c[size_t(k)] = index;
      continue;
    }
    Dims shape = Dims::filled(index->ndim(), 1);
    shape[k] = index->shape[k];
    c[size_t(k)] = reshaped(arange(0, double(index->shape[k]), 1, DType::i64, a->device), shape);
  }
  return c;
}

// PyTorch's shape rules for scatter/gather-like ops: index has a's number of
// dims, no larger than src anywhere nor than a outside dim.
void check_scatter_shapes(const char* op, const Tensor& a, int64_t d, const Tensor& index,
                          const Tensor* src) {
  TC_CHECK(index->ndim() == a->ndim(), TC_ERR_SHAPE, op, ": index (shape ", index->shape,
           ") must have as many dims as self (shape ", a->shape, ")");
  for (int64_t k = 0; k < a->ndim(); ++k) {
    TC_CHECK((k == d || index->shape[k] <= a->shape[k]) && (!src || index->shape[k] <= (*src)->shape[k]),
             TC_ERR_SHAPE, op, ": expected index ", index->shape, " to be smaller than self ", a->shape,
             " apart from dimension ", d, src ? " and to be smaller size than src " : "",
             src ? describe(*src) : std::string());
  }
  if (src) {
    TC_CHECK((*src)->ndim() == a->ndim(), TC_ERR_SHAPE, op, ": src (shape ", (*src)->shape,
             ") must have as many dims as self (shape ", a->shape, ")");
  }
}

// src cut to index's shape (a differentiable view: src's gradient is zero elsewhere).
Tensor src_block(const Tensor& src, const Tensor& index) {
  Tensor s = src;
  for (int64_t k = 0; k < src->ndim(); ++k) {
    if (s->shape[k] != index->shape[k]) s = narrow(s, k, 0, index->shape[k]);
  }
  return s;
}

// Ops on 0-dim tensors run as on one element, like PyTorch.
Tensor as_1d(const Tensor& t) { return t->ndim() == 0 ? reshape(t, {1}) : t; }

struct Scatter {
  Tensor a, index;
  int64_t d = 0;
  bool scalar = false;  // a was 0-dim
};
Scatter prepare(const char* op, const Tensor& a, int64_t dim, const Tensor& index, bool allow_int32) {
  check_index_dtype(op, index, allow_int32);
  TC_CHECK(index->device == a->device, TC_ERR_DEVICE, op, ": index is on ", device_name(index->device),
           " but self is on ", device_name(a->device));
  Scatter s;
  s.scalar = a->ndim() == 0;
  s.a = as_1d(a);
  s.index = as_1d(index);
  s.d = wrap_dim(dim, s.a->ndim(), op);
  return s;
}
Tensor finish(const Scatter& s, const Tensor& r) { return s.scalar ? reshape(r, {}) : r; }

Tensor scatter_impl(const char* op, const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src,
                    IndexPutMode mode) {
  Scatter s = prepare(op, a, dim, index, false);
  Tensor src1 = as_1d(src);
  check_scatter_shapes(op, s.a, s.d, s.index, &src1);
  return finish(
      s, index_put_with(op, s.a, scatter_coords(s.a, s.d, s.index), src_block(src1, s.index), mode, false));
}

// The value a reduction starts from where include_self is false.
double reduce_identity(int32_t reduce, DType dt) {
  const bool fl = is_floating(dt);
  switch (reduce) {
    case TC_SCATTER_PROD:
      return 1;
    case TC_SCATTER_AMAX:
      if (fl) return -std::numeric_limits<double>::infinity();
      return dt == DType::b8 ? 0.0 : -std::ldexp(1.0, int(dtype_size(dt) * 8 - 1));
    case TC_SCATTER_AMIN:
      if (fl) return std::numeric_limits<double>::infinity();
      // The largest value of a signed integer type, rounded down to a double it holds.
      return dt == DType::b8 ? 1.0 : std::nextafter(std::ldexp(1.0, int(dtype_size(dt) * 8 - 1)), 0.0);
    default:
      return 0;
  }
}

IndexPutMode reduce_mode(int32_t reduce) {
  switch (reduce) {
    case TC_SCATTER_PROD:
      return IndexPutMode::mul;
    case TC_SCATTER_AMAX:
      return IndexPutMode::max;
    case TC_SCATTER_AMIN:
      return IndexPutMode::min;
    default:
      return IndexPutMode::add;
  }
}

// scatter_reduce without autograd; srcb has index's shape.
Tensor scatter_reduce_raw(const Tensor& a, const IndexPlan& p, const Tensor& srcb, int32_t reduce,
                          bool include_self) {
  NoGradGuard ng;
  Tensor out = clone_data(a);
  if (!include_self)
    index_put_raw(out, p, scalar_tensor(reduce_identity(reduce, a->dtype), a->dtype, a->device),
                  IndexPutMode::assign);
  index_put_raw(out, p, srcb, reduce_mode(reduce));
  if (reduce != TC_SCATTER_MEAN) return out;
  Tensor count = include_self ? tc::ops::add_scalar(zeros(a->shape, DType::f64, a->device), 1.0)
                              : zeros(a->shape, DType::f64, a->device);
  index_put_raw(count, p, scalar_tensor(1, DType::f64, a->device), IndexPutMode::add);
  count = where(binary(row::eq, count, scalar_tensor(0, DType::f64, a->device)),
                scalar_tensor(1, DType::f64, a->device), count);
  if (is_floating(a->dtype)) return div(out, cast(count, a->dtype));
  // Integers: floor division, like PyTorch.
  return cast(unary(row::floor, div(cast(out, DType::f64), count)), a->dtype);
}

Tensor as_dtype(const Tensor& b, DType dt) { return cast(b, dt); }

// PyTorch's scatter_reduce_backward (torch/csrc/autograd/FunctionsManual.cpp).
// Under create_graph (graph) the gradients are recorded: sum/mean/amax/amin's
// are linear in g with constant coefficients (gather, div, mul, where);
// prod's scatter again with the recorded op and read the result with its
// graph. As PyTorch's, src's gradient where more than one zero of src is
// scattered to the same element is not differentiable (marked).
Grads scatter_reduce_grads(const Tensor& g, const Tensor& self, const Tensor& index, const Tensor& src,
                           const Tensor& result, int64_t d, int32_t reduce, bool include_self, bool graph) {
  const DType dt = self->dtype;
  const Device dev = self->device;
  auto s = [&](double v) { return scalar_tensor(v, dt, dev); };
  auto eq = [](const Tensor& x, const Tensor& y) { return binary(row::eq, x, y); };
  IndexPlan p = plan_index("scatter_reduce", self, scatter_coords(self, d, index), false);
  Tensor grad_self, grad_src;
  switch (reduce) {
    case TC_SCATTER_SUM:
      grad_self = g;
      grad_src = gather(g, d, index);
      break;
    case TC_SCATTER_MEAN: {
      Tensor n = include_self ? add_scalar(zeros(self->shape, dt, dev), 1.0) : zeros(self->shape, dt, dev);
      index_put_raw(n, p, s(1), IndexPutMode::add);
      n = where(eq(n, s(0)), s(1), n);
      grad_self = div(g, n);
      grad_src = div(gather(g, d, index), gather(n, d, index));
      break;
    }
    case TC_SCATTER_PROD: {
      // The scatter of the masked operands: recorded under create_graph.
      auto scatter_prod = [&](const Tensor& base, const Tensor& source) {
        return graph ? scatter_reduce(base, d, index, source, reduce, include_self)
                     : scatter_reduce_raw(base, p, source, reduce, include_self);
      };
      Tensor masked_self = where(eq(self, s(0)), s(1), self);
      Tensor masked_self_result = scatter_prod(masked_self, src);
      grad_self = div(mul(g, masked_self_result), masked_self);
      Tensor src_zero = eq(src, s(0));
      Tensor zero_count = zeros(self->shape, dt, dev);
      index_put_raw(zero_count, p, as_dtype(src_zero, dt), IndexPutMode::add);
      Tensor src_num_zeros = gather(zero_count, d, index);
      Tensor src_single_zero = where(src_zero, eq(src_num_zeros, s(1)), scalar_tensor(0, DType::b8, dev));
      Tensor masked_src = where(src_single_zero, s(1), src);
      Tensor masked_src_result = scatter_prod(self, masked_src);
      grad_src = where(src_single_zero, gather(mul(g, masked_src_result), d, index),
                       div(gather(mul(g, result), d, index), where(src_zero, s(1), src)));
      if (graph && read_element(any(binary(row::gt, src_num_zeros, s(1)), {}, false), 0) != 0.0) {
        Grads marked{grad_src};
        autograd::not_differentiable(marked);
        grad_src = marked[0];
      }
      break;
    }
    default: {  // amax, amin: the gradient is split evenly among the elements equal to the result
      Tensor value = gather(result, d, index);
      Tensor self_is_result = as_dtype(eq(self, result), dt);
      Tensor src_is_result = as_dtype(eq(src, value), dt);
      Tensor n = clone_data(self_is_result);
      index_put_raw(n, p, src_is_result, IndexPutMode::add);
      Tensor grad_distributed = div(g, n);
      grad_self = mul(self_is_result, grad_distributed);
      grad_src = mul(src_is_result, gather(grad_distributed, d, index));
      break;
    }
  }
  if (!include_self) {
    if (graph) {  // zero where src was scattered, recorded
      Tensor written = zeros(self->shape, dt, dev);
      index_put_raw(written, p, s(1), IndexPutMode::assign);
      grad_self = where(binary(row::ne, written, s(0)), s(0), grad_self);
    } else {
      grad_self = clone_data(grad_self);
      index_put_raw(grad_self, p, s(0), IndexPutMode::assign);
    }
  }
  return {grad_self, grad_src};
}

Grads scatter_reduce_backward(const Tensor& g, const Tensor& self, const Tensor& index, const Tensor& src,
                              const Tensor& result, int64_t d, int32_t reduce, bool include_self) {
  if (creating_graph()) {
    // prod's formula reads the result, differentiated through (its saved alias carries no graph)
    const Tensor res = reduce == TC_SCATTER_PROD ? autograd::output_with_graph(result) : result;
    return scatter_reduce_grads(g, self, index, src, res, d, reduce, include_self, true);
  }
  NoGradGuard ng;
  return scatter_reduce_grads(g, self, index, src, result, d, reduce, include_self, false);
}

}  // namespace

Tensor scatter(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter", a, dim, index, src, IndexPutMode::assign);
}

Tensor scatter_add(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl("scatter_add", a, dim, index, src, IndexPutMode::add);
}

Tensor scatter_value(const Tensor& a, int64_t dim, const Tensor& index, double value) {
  const char* op = "scatter";
  Scatter s = prepare(op, a, dim, index, false);
  check_scatter_shapes(op, s.a, s.d, s.index, nullptr);
  value = checked_fill_value(op, value, a->dtype);
  return finish(s, index_put_with(op, s.a, scatter_coords(s.a, s.d, s.index),
                                  scalar_tensor(value, a->dtype, a->device), IndexPutMode::assign, false));
}

Tensor scatter_reduce(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src, int32_t reduce,
                      bool include_self) {
  const char* op = "scatter_reduce";
  TC_CHECK(reduce >= TC_SCATTER_SUM && reduce <= TC_SCATTER_AMIN, TC_ERR_INVALID_ARGUMENT, op,
           ": reduce must be TC_SCATTER_SUM, _PROD, _MEAN, _AMAX or _AMIN but is ", reduce);
  Scatter s = prepare(op, a, dim, index, false);
  Tensor src1 = as_1d(src);
  check_scatter_shapes(op, s.a, s.d, s.index, &src1);
  TC_CHECK(src->dtype == a->dtype, TC_ERR_DTYPE, op, ": self is ", dtype_name(a->dtype), " but src is ",
           dtype_name(src->dtype), " (they must match)");
  TC_CHECK(src->device == a->device, TC_ERR_DEVICE, op, ": src is on ", device_name(src->device),
           " but self is on ", device_name(a->device));
  check_compute_dtype(op, "self", a->dtype, true);
  Tensor srcb = src_block(src1, s.index);
  IndexPlan p = plan_index(op, s.a, scatter_coords(s.a, s.d, s.index), false);
  Tensor out = scatter_reduce_raw(s.a, p, srcb, reduce, include_self);
  const int64_t d = s.d;
  autograd::record_function(
      "ScatterReduceBackward", {s.a, srcb}, {out}, {s.a, s.index, srcb, autograd::alias(out)},
      [d, reduce, include_self](const Grads& g, const std::vector<Tensor>& sv) -> Grads {
        return scatter_reduce_backward(g[0], sv[0], sv[1], sv[2], sv[3], d, reduce, include_self);
      });
  return finish(s, out);
}

namespace {
// index_add/index_copy: index 1-D (or 0-dim) at dim, source a's shape but
// index's length at dim.
Tensor index_along(const char* op, const Tensor& a, int64_t dim, const Tensor& index, const Tensor& values,
                   const Tensor* source, IndexPutMode mode, bool allow_negative) {
  Scatter s = prepare(op, a, dim, index, true);
  TC_CHECK(index->ndim() <= 1, TC_ERR_SHAPE, op, ": index must be 0-dim or 1-D but has shape ", index->shape);
  if (source) {
    Tensor src1 = as_1d(*source);
    TC_CHECK(src1->ndim() == s.a->ndim(), TC_ERR_SHAPE, op, ": source (shape ", (*source)->shape,
             ") must have as many dims as self (shape ", a->shape, ")");
    for (int64_t k = 0; k < s.a->ndim(); ++k) {
      TC_CHECK(k == s.d || src1->shape[k] == s.a->shape[k], TC_ERR_SHAPE, op, ": source of shape ",
               (*source)->shape, " does not match self of shape ", a->shape, " outside dim ", s.d);
    }
    TC_CHECK(src1->shape[s.d] == s.index->numel(), TC_ERR_SHAPE, op, ": number of indices (",
             s.index->numel(), ") should be equal to source.size(dim) (", src1->shape[s.d], ")");
  }
  std::vector<Tensor> idx(size_t(s.d) + 1);
  idx[size_t(s.d)] = s.index;
  Tensor v = source ? as_1d(values) : values;
  return finish(s, index_put_with(op, s.a, idx, v, mode, allow_negative));
}
}  // namespace

Tensor index_add(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& source, double alpha) {
  Tensor v = source;
  if (alpha != 1.0) {
    check_compute_dtype("index_add", "source", source->dtype, false);
    v = mul(source, scalar_tensor(checked_fill_value("index_add", alpha, source->dtype), source->dtype,
                                  source->device));
  }
  return index_along("index_add", a, dim, index, v, &source, IndexPutMode::add, false);
}

Tensor index_copy(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& source) {
  return index_along("index_copy", a, dim, index, source, &source, IndexPutMode::assign, false);
}

Tensor index_fill(const Tensor& a, int64_t dim, const Tensor& index, double value) {
  value = checked_fill_value("index_fill", value, a->dtype);
  return index_along("index_fill", a, dim, index, scalar_tensor(value, a->dtype, a->device), nullptr,
                     IndexPutMode::assign, true);
}

}  // namespace tc::ops
