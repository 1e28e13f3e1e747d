// frexp composed of elementwise ops (any device, every floating dtype): the
// exponent is found in double without autograd, then the mantissa is a times
// two exact powers of two, so that autograd records only those products and
// the gradient is PyTorch's g / 2^exponent.
#include "ops/frexp.h"

#include "core/init.h"
#include "math/op_enums.h"
#include "ops/internal.h"

namespace tc::ops {

namespace {

Tensor scalar_like(double v, const Tensor& t) { return scalar_tensor(v, t->dtype, t->device); }

}  // namespace

std::pair<Tensor, Tensor> frexp(const Tensor& a) {
  TC_CHECK(is_floating(a->dtype), TC_ERR_DTYPE,
           "frexp: torch.frexp() only supports floating-point dtypes (a is ", detail::describe(a), ")");
  Tensor e, s1, s2;
  {
    NoGradGuard no_grad;
    // Every float16/bfloat16/float32/float64 value, subnormals included, is a
    // double; its exponent is in [-1073, 1024].
    const Tensor x = cast(a, DType::f64);
    const Tensor regular = binary(BinaryOp::logical_and, unary(UnaryOp::isfinite, x),
                                  binary(BinaryOp::ne, x, scalar_like(0, x)));
    const Tensor ax = where(regular, unary(UnaryOp::abs, x), scalar_like(1, x));
    // floor(log2|x|) + 1, then corrected by one where log2 rounded across a
    // power of two: 2^(e-1) <= |x| < 2^e (2^(e-1) is at least the smallest
    // subnormal; 2^e may be inf, which every double is below).
    e = add_scalar(unary(UnaryOp::floor, unary(UnaryOp::log2, ax)), 1);
    e = where(binary(BinaryOp::lt, ax, unary(UnaryOp::exp2, add_scalar(e, -1))), add_scalar(e, -1), e);
    e = where(binary(BinaryOp::ge, ax, unary(UnaryOp::exp2, e)), add_scalar(e, 1), e);
    e = where(regular, e, scalar_like(0, x));
    // 2^-e as two factors, each representable in a's dtype (2^-1073 is not
    // even a double, nor 2^149 a float), so both products are exact.
    const Tensor half = unary(UnaryOp::trunc, mul_scalar(e, 0.5));
    s1 = cast(unary(UnaryOp::exp2, unary(UnaryOp::neg, half)), a->dtype);
    s2 = cast(unary(UnaryOp::exp2, binary(BinaryOp::sub, half, e)), a->dtype);
  }
  Tensor mantissa = mul(mul(a, s1), s2);
  return {std::move(mantissa), cast(e, DType::i32)};
}

}  // namespace tc::ops
