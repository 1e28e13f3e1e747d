// Complex tensors: the views between complex and real (view_as_real,
// view_as_complex, real, imag) and the complex forms of arithmetic,
// comparison, abs and the sums, all composed of real ops on the parts. Being
// compositions of differentiable real ops, their gradients follow PyTorch's
// convention for a real loss L: the gradient of z = x + iy is dL/dx + i dL/dy
// (the conjugate Wirtinger derivative, times 2).
#include <cmath>

#include "autograd/engine.h"
#include "core/init.h"
#include "math/rows/binary_add.h"
#include "math/rows/binary_atan2.h"
#include "math/rows/binary_div.h"
#include "math/rows/binary_hypot.h"
#include "math/rows/binary_mul.h"
#include "math/rows/binary_sub.h"
#include "math/rows/compare_eq.h"
#include "math/rows/compare_logical_and.h"
#include "math/rows/compare_logical_or.h"
#include "math/rows/compare_lt.h"
#include "math/rows/compare_ne.h"
#include "math/rows/unary_abs.h"
#include "math/rows/unary_cos.h"
#include "math/rows/unary_isnan.h"
#include "math/rows/unary_neg.h"
#include "math/rows/unary_sin.h"
#include "math/scalar_op_enum.h"
#include "ops/internal.h"

namespace tc::ops {
using autograd::Grads;
using namespace detail;

namespace {

[[noreturn]] void unsupported(const char* what) {
  fail(TC_ERR_DTYPE,
       str(what, " is not supported for complex tensors (complex tensors support add, sub, mul, ",
           "div, neg, eq, ne, abs, angle, conj, real, imag, sum, mean and the FFTs)"));
}

bool is_real_float(DType d) { return d == DType::f32 || d == DType::f64; }

// a in the complex dtype ct (differentiable).
Tensor in_dtype(const Tensor& a, DType ct) { return a->dtype == ct ? a : to_dtype(a, ct); }

// The real pairs [..., 2] of z as the result of complex arithmetic on them.
Tensor from_pairs(const Tensor& pairs) { return view_as_complex(ops::contiguous(pairs)); }

}  // namespace

Tensor view_as_real(const Tensor& z) {
  TC_CHECK(is_complex(z->dtype), TC_ERR_DTYPE,
           "view_as_real is only supported for complex tensors, but got a ", describe(z));
  Tensor v = complex_pairs_view(z);
  autograd::record_function("ViewAsRealBackward", {z}, {v}, {},
                            [](const Grads& g, const std::vector<Tensor>&) -> Grads {
                              return {view_as_complex(ops::contiguous(g[0]))};
                            });
  return v;
}

Tensor view_as_complex(const Tensor& x) {
  TC_CHECK(is_real_float(x->dtype), TC_ERR_DTYPE,
           "view_as_complex is only supported for float32 and float64 tensors, but got a ", describe(x));
  TC_CHECK(x->ndim() > 0 && x->shape.back() == 2, TC_ERR_SHAPE,
           "view_as_complex: Tensor must have a last dimension of size 2 (got shape ", x->shape, ")");
  TC_CHECK(x->strides.back() == 1, TC_ERR_SHAPE,
           "view_as_complex: Tensor must have a last dimension with stride 1");
  Dims shape, strides;
  for (int64_t i = 0; i + 1 < x->ndim(); ++i) {
    TC_CHECK(x->strides[i] % 2 == 0 || x->shape[i] <= 1, TC_ERR_SHAPE,
             "view_as_complex: Tensor must have a stride divisible by 2 for all but last dimension");
    shape.push_back(x->shape[i]);
    strides.push_back(x->shape[i] <= 1 ? 1 : x->strides[i] / 2);
  }
  TC_CHECK(x->offset % 2 == 0, TC_ERR_SHAPE,
           "view_as_complex: Tensor must have a storage_offset divisible by 2");
  Tensor v = make_view(x, shape, strides, x->offset / 2);
  v->dtype = to_complex_dtype(x->dtype);
  autograd::record_function(
      "ViewAsComplexBackward", {x}, {v}, {},
      [](const Grads& g, const std::vector<Tensor>&) -> Grads { return {view_as_real(g[0])}; });
  return v;
}

Tensor complex(const Tensor& re, const Tensor& im) {
  check_same_device("complex", re, im, true);
  TC_CHECK(is_floating(re->dtype) && is_floating(im->dtype), TC_ERR_DTYPE,
           "complex: expected both inputs to be float32 or float64 tensors but got ", dtype_name(re->dtype),
           " and ", dtype_name(im->dtype));
  TC_CHECK(re->dtype == im->dtype, TC_ERR_DTYPE, "complex: expected object of scalar type ",
           dtype_name(re->dtype), " but got scalar type ", dtype_name(im->dtype), " for second argument");
  TC_CHECK(is_real_float(re->dtype), TC_ERR_DTYPE, "complex: ", dtype_name(re->dtype),
           " parts are not supported (float32 or float64)");
  const Dims shape = broadcast_shapes(re->shape, im->shape, "complex");
  return view_as_complex(stack({expand(re, shape), expand(im, shape)}, -1));
}

Tensor polar(const Tensor& abs, const Tensor& angle) {
  check_same_device("polar", abs, angle, true);
  TC_CHECK(abs->dtype == angle->dtype && is_real_float(abs->dtype), TC_ERR_DTYPE,
           "polar: expected abs and angle of one dtype, float32 or float64, but got ", dtype_name(abs->dtype),
           " and ", dtype_name(angle->dtype));
  return complex(mul(abs, unary(row::cos, angle)), mul(abs, unary(row::sin, angle)));
}

Tensor real(const Tensor& z) { return is_complex(z->dtype) ? select(view_as_real(z), -1, 0) : z; }

Tensor imag(const Tensor& z) {
  TC_CHECK(is_complex(z->dtype), TC_ERR_DTYPE,
           "imag is not implemented for tensors with non-complex dtypes (got a ", describe(z), ")");
  return select(view_as_real(z), -1, 1);
}

Tensor conj(const Tensor& z) {
  if (!is_complex(z->dtype)) return z;
  // (re, -im): the pairs times (1, -1).
  Tensor sign = empty(Dims{2}, complex_part_dtype(z->dtype), kCPU);
  copy_into(raw_narrow(sign, 0, 0, 1), full(Dims{1}, 1.0, sign->dtype));
  copy_into(raw_narrow(sign, 0, 1, 1), full(Dims{1}, -1.0, sign->dtype));
  return from_pairs(mul(view_as_real(z), tc::to_device(sign, z->device)));
}

Tensor angle(const Tensor& z) {
  if (is_complex(z->dtype)) return binary(row::atan2, imag(z), real(z));
  // A real number's angle: pi for the negative ones, else 0 (NaN stays NaN).
  const DType ct = result_type_scalar(z);
  Tensor x = in_dtype(z, ct);
  Tensor neg = to_dtype(compare_scalar(row::lt, x, 0.0), ct);
  Tensor nan = to_dtype(unary(row::isnan, x), ct);
  // nan * NaN keeps NaN where x is NaN (0 * NaN elsewhere would not: add only where set).
  Tensor out = mul_scalar(neg, M_PI);
  return add(out, where(unary(row::isnan, x), x, zeros_like(out)));
}

Tensor complex_binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  check_same_device("complex arithmetic", a, b, true);
  const DType ct = result_type2(a, b);
  const bool ca = is_complex(a->dtype), cb = is_complex(b->dtype);
  const DType part = complex_part_dtype(ct);
  switch (op) {
    case row::eq:
    case row::ne: {
      const Tensor A = in_dtype(a, ct), B = in_dtype(b, ct);
      const bool eq = op == row::eq;
      const BinaryOp join = eq ? row::logical_and : row::logical_or;
      return binary(join, binary(op, real(A), real(B)), binary(op, imag(A), imag(B)));
    }
    case row::add:
    case row::sub:
      return from_pairs(binary(op, view_as_real(in_dtype(a, ct)), view_as_real(in_dtype(b, ct))));
    case row::mul:
    case row::div:
      if (!cb) {  // complex (op) real: both parts by b
        return from_pairs(binary(op, view_as_real(in_dtype(a, ct)), unsqueeze(in_dtype(b, part), -1)));
      }
      if (!ca && op == row::mul) {
        return from_pairs(binary(op, unsqueeze(in_dtype(a, part), -1), view_as_real(in_dtype(b, ct))));
      }
      {
        const Tensor A = in_dtype(a, ct), B = in_dtype(b, ct);
        const Tensor ar = real(A), ai = imag(A), br = real(B), bi = imag(B);
        if (op == row::mul) return complex(sub(mul(ar, br), mul(ai, bi)), add(mul(ar, bi), mul(ai, br)));
        const Tensor d = add(mul(br, br), mul(bi, bi));
        return complex(div(add(mul(ar, br), mul(ai, bi)), d), div(sub(mul(ai, br), mul(ar, bi)), d));
      }
    default:
      unsupported("this binary op");
  }
}

Tensor complex_binary_scalar(ScalarOp op, const Tensor& a, double s) {
  switch (op) {
    case ScalarOp::add:
      return complex(add_scalar(real(a), s), imag(a));
    case ScalarOp::sub:
      return complex(add_scalar(real(a), -s), imag(a));
    case ScalarOp::mul:
    case ScalarOp::div:
      return from_pairs(binary_scalar(op, view_as_real(a), s));
    case ScalarOp::rsub:
      return complex(binary_scalar(ScalarOp::rsub, real(a), s), unary(row::neg, imag(a)));
    case ScalarOp::rdiv: {  // s / a = s conj(a) / |a|^2
      const Tensor re = real(a), im = imag(a);
      const Tensor d = add(mul(re, re), mul(im, im));
      return complex(mul_scalar(div(re, d), s), mul_scalar(div(im, d), -s));
    }
    default:
      unsupported("this scalar op");
  }
}

Tensor complex_compare_scalar(BinaryOp op, const Tensor& a, double s) {
  if (op == row::eq) {
    return binary(row::logical_and, compare_scalar(op, real(a), s), compare_scalar(op, imag(a), 0.0));
  }
  if (op == row::ne) {
    return binary(row::logical_or, compare_scalar(op, real(a), s), compare_scalar(op, imag(a), 0.0));
  }
  unsupported("this comparison (complex numbers are not ordered)");
}

Tensor complex_unary(UnaryOp op, const Tensor& z) {
  if (op == row::neg) return from_pairs(unary(row::neg, view_as_real(z)));
  if (op != row::abs) unsupported("this elementwise op");
  // |z| = hypot(re, im); its gradient g z / |z| (0 where z = 0, as PyTorch's sgn).
  Tensor r;
  {
    NoGradGuard no_grad;
    r = binary(row::hypot, complex_part_view(z, 0), complex_part_view(z, 1));
  }
  autograd::record_function("AbsBackward", {z}, {r}, {z, autograd::alias(r)},
                            [](const Grads& g, const std::vector<Tensor>& saved) -> Grads {
                              // (AbsBackward is a composed row's name too, so it is differentiated
                              // twice: |z| is read with its graph under create_graph.)
                              const Tensor& x = saved[0];
                              const Tensor mag = autograd::output_with_graph(saved[1]);
                              const Tensor zero = to_dtype(compare_scalar(row::eq, mag, 0.0), mag->dtype);
                              const Tensor ratio = div(g[0], add(mag, zero));
                              return {from_pairs(mul(view_as_real(x), unsqueeze(ratio, -1)))};
                            });
  return r;
}

Tensor complex_sum(const Tensor& a, const Dims& dims, bool keepdim, bool mean) {
  const char* op = mean ? "mean" : "sum";
  Dims ds;
  if (dims.empty()) {
    for (int64_t i = 0; i < a->ndim(); ++i) ds.push_back(i);
  } else {
    for (int64_t d : dims) ds.push_back(wrap_dim(d, a->ndim(), op));
  }
  if (ds.empty()) return clone(a);  // a 0-dim tensor: its one element
  const Tensor pairs = view_as_real(a);
  return from_pairs(mean ? ops::mean(pairs, ds, keepdim) : ops::sum(pairs, ds, keepdim));
}

}  // namespace tc::ops
