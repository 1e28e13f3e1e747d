// The binary ops beyond the table's kernels: the dtype rules of the
// new binary rows and integer division's ZeroDivisionError (called from
// ops::binary), comparisons with a scalar, and the ops composed of existing
// ones (isclose, lerp, addcmul, addcdiv, prelu, glu): autograd records the
// ops they are made of, so they need no kernel and no backward of their own.
#include <cmath>

#include "core/init.h"
#include "math/elementwise_math.h"
#include "ops/internal.h"

namespace tc::ops {

using namespace detail;

namespace detail {

DType binary_compute_dtype(BinaryOp op, const char* name, const Tensor& a, const Tensor& b, DType ct) {
  switch (ew::binary_dtypes(op)) {
    case ew::BinaryDtypes::floating:  // like true division: integer and bool operands promote
      return is_floating(ct) ? ct : default_dtype();
    case ew::BinaryDtypes::floating_only:
      TC_CHECK(is_floating(ct), TC_ERR_DTYPE, name, ": expected floating tensors but got ", describe(a),
               " and ", describe(b), " (\"", name, "\" is not implemented for integer dtypes)");
      return ct;
    case ew::BinaryDtypes::integral:
    case ew::BinaryDtypes::integer:
      TC_CHECK(!is_floating(ct), TC_ERR_DTYPE, name, ": expected integer",
               ew::binary_dtypes(op) == ew::BinaryDtypes::integral ? " or bool" : "", " tensors but got ",
               describe(a), " and ", describe(b));
      // (bool for the shifts is refused before, by check_binary_dtypes)
      return ct;
    case ew::BinaryDtypes::numeric:
    case ew::BinaryDtypes::numeric_bool:
    case ew::BinaryDtypes::any:
      return ct;
  }
  return ct;
}

void check_no_zero_divisor(const char* name, const Tensor& a, const Tensor& b) {
  if (b->numel() == 0) return;
  // One pass on the device, one number back: how many divisors are 0.
  const Tensor zeros_found =
      sum(cast(binary(BinaryOp::eq, b, scalar_tensor(0, b->dtype, b->device)), DType::i64), {}, false);
  TC_CHECK(read_element(tc::to_device(zeros_found, kCPU), 0) == 0, TC_ERR_INVALID_ARGUMENT, name,
           ": ZeroDivisionError: integer division by zero (a is ", describe(a), ", b is ", describe(b),
           " and holds a 0)");
}

}  // namespace detail

Tensor compare_scalar(BinaryOp op, const Tensor& a, double s) {
  TC_CHECK(is_comparison(op), TC_ERR_INTERNAL, "compare_scalar: not a comparison");
  if (is_complex(a->dtype)) return complex_compare_scalar(op, a, s);
  check_same_device("compare_scalar", a, a, true);
  // s is a Python float: a floating tensor compares in its own dtype, an
  // integer or bool one in the default float dtype (PyTorch's eq.Scalar).
  const DType ct = result_type_scalar(a);
  return binary(op, cast(a, ct), scalar_tensor(s, ct, a->device));
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  check_same_device("isclose", a, b, true);
  TC_CHECK(a->dtype == b->dtype, TC_ERR_DTYPE, "isclose: expected a and b to have the same dtype, but got ",
           describe(a), " and ", describe(b));
  TC_CHECK(rtol >= 0, TC_ERR_INVALID_ARGUMENT,
           "isclose: rtol must be greater than or equal to zero, but got ", rtol);
  TC_CHECK(atol >= 0, TC_ERR_INVALID_ARGUMENT,
           "isclose: atol must be greater than or equal to zero, but got ", atol);
  // Not differentiable: computed on detached inputs, so no graph is built.
  const Tensor x = detach(a), y = detach(b);
  Tensor close = binary(BinaryOp::eq, x, y);
  if (equal_nan && is_floating(x->dtype)) {
    close = binary(BinaryOp::logical_or, close,
                   binary(BinaryOp::logical_and, unary(UnaryOp::isnan, x), unary(UnaryOp::isnan, y)));
  }
  if (rtol == 0 && atol == 0) return close;
  // PyTorch's formula: |a - b| finite and <= atol + rtol * |b| (bool operands as the default float dtype).
  const Tensor cx = x->dtype == DType::b8 ? cast(x, default_dtype()) : x;
  const Tensor cy = y->dtype == DType::b8 ? cast(y, default_dtype()) : y;
  const Tensor allowed = add_scalar(unary(UnaryOp::abs, mul_scalar(cy, rtol)), atol);
  const Tensor actual = unary(UnaryOp::abs, binary(BinaryOp::sub, cx, cy));
  const Tensor within =
      binary(BinaryOp::logical_and, unary(UnaryOp::isfinite, actual), binary(BinaryOp::le, actual, allowed));
  return binary(BinaryOp::logical_or, close, within);
}

namespace {
void check_lerp(const Tensor& a, const Tensor& b, const Tensor* w) {
  check_same_device("lerp", a, b, true);
  TC_CHECK(is_floating(a->dtype), TC_ERR_DTYPE, "lerp: expected floating tensors but got start ",
           describe(a));
  TC_CHECK(a->dtype == b->dtype, TC_ERR_DTYPE, "lerp: expected dtype ", dtype_name(a->dtype),
           " for end but got ", describe(b));
  if (w) {
    check_same_device("lerp", a, *w, true);
    TC_CHECK((*w)->dtype == a->dtype, TC_ERR_DTYPE, "lerp: expected dtype ", dtype_name(a->dtype),
             " for weight but got ", describe(*w));
  }
}
}  // namespace

Tensor lerp(const Tensor& a, const Tensor& b, const Tensor& w) {
  check_lerp(a, b, &w);
  broadcast_shapes(broadcast_shapes(a->shape, b->shape, "lerp"), w->shape, "lerp");
  // PyTorch's two-sided form (exact at both ends): w < 0.5 ? a + w (b - a) : b - (b - a)(1 - w).
  const Tensor diff = sub(b, a);
  const Tensor low = add(a, mul(w, diff));
  const Tensor high = sub(b, mul(diff, binary_scalar(ScalarOp::rsub, w, 1.0)));
  return where(compare_scalar(BinaryOp::lt, w, 0.5), low, high);
}

Tensor lerp_scalar(const Tensor& a, const Tensor& b, double w) {
  check_lerp(a, b, nullptr);
  broadcast_shapes(a->shape, b->shape, "lerp");
  const Tensor diff = sub(b, a);
  if (std::fabs(w) < 0.5) return add(a, mul_scalar(diff, w));
  return sub(b, mul_scalar(diff, 1.0 - w));
}

namespace {
// value as a 0-d tensor of t's dtype (a Python scalar that does not change the
// result's dtype); a fractional value for an integer t is refused, as PyTorch.
Tensor value_like(const char* name, const Tensor& t, double value) {
  TC_CHECK(is_floating(t->dtype) || value == std::floor(value), TC_ERR_DTYPE, name,
           ": for integer tensors, value must be a whole number but is ", value, " (", describe(t), ")");
  return scalar_tensor(value, t->dtype, t->device);
}
}  // namespace

Tensor addcmul(const Tensor& input, const Tensor& t1, const Tensor& t2, double value) {
  check_same_device("addcmul", input, t1, true);
  check_same_device("addcmul", t1, t2, true);
  broadcast_shapes(broadcast_shapes(input->shape, t1->shape, "addcmul"), t2->shape, "addcmul");
  const Tensor prod = mul(t1, t2);
  return add(input, value == 1 ? prod : mul(prod, value_like("addcmul", prod, value)));
}

Tensor addcdiv(const Tensor& input, const Tensor& t1, const Tensor& t2, double value) {
  check_same_device("addcdiv", input, t1, true);
  check_same_device("addcdiv", t1, t2, true);
  TC_CHECK(is_floating(t1->dtype) || is_floating(t2->dtype), TC_ERR_DTYPE,
           "addcdiv: integer division with addcdiv is not supported (tensor1 is ", describe(t1),
           ", tensor2 is ", describe(t2),
           "); use floating tensors or input + value * torch.div(tensor1, tensor2, rounding_mode)");
  broadcast_shapes(broadcast_shapes(input->shape, t1->shape, "addcdiv"), t2->shape, "addcdiv");
  const Tensor q = div(t1, t2);
  return add(input, value == 1 ? q : mul(q, value_like("addcdiv", q, value)));
}

Tensor prelu(const Tensor& x, const Tensor& weight) {
  check_same_device("prelu", x, weight, true);
  TC_CHECK(is_floating(x->dtype) && x->dtype == weight->dtype, TC_ERR_DTYPE,
           "prelu: expected floating input and weight of the same dtype, but got input ", describe(x),
           " and weight ", describe(weight));
  TC_CHECK(weight->ndim() <= 1, TC_ERR_SHAPE, "prelu: weight must be 0-D or 1-D but is ", describe(weight));
  Tensor w;
  if (weight->numel() == 1) {
    w = reshape(weight, {});  // one slope for every element
  } else {
    const int64_t channels = x->ndim() >= 2 ? x->shape[1] : 1;
    TC_CHECK(x->ndim() >= 2 && weight->numel() == channels, TC_ERR_SHAPE,
             "prelu: mismatch of parameter numbers and input channel size: weight has ", weight->numel(),
             " elements but input ", describe(x), " has ", channels, " channels (dim 1)");
    Dims shape = Dims::filled(x->ndim() - 1, 1);
    shape[0] = channels;  // one slope per channel, broadcast over dim 1
    w = reshape(weight, shape);
  }
  return where(compare_scalar(BinaryOp::gt, x, 0.0), x, mul(w, x));
}

Tensor glu(const Tensor& x, int64_t dim) {
  TC_CHECK(x->ndim() > 0, TC_ERR_SHAPE,
           "glu: does not support 0-D tensors because halving size must be even");
  TC_CHECK(is_floating(x->dtype), TC_ERR_DTYPE, "glu: expected a floating tensor but got ", describe(x));
  const int64_t d = wrap_dim(dim, x->ndim(), "glu");
  const int64_t n = x->shape[d];
  TC_CHECK(n % 2 == 0, TC_ERR_SHAPE, "glu: halving dimension must be even, but dimension ", d, " is size ",
           n);
  return mul(narrow(x, d, 0, n / 2), unary(UnaryOp::sigmoid, narrow(x, d, n / 2, n / 2)));
}

}  // namespace tc::ops
