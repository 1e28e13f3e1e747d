// frexp composed of elementwise ops (any device, every floating dtype): the
// exponent is found in double without autograd, then the mantissa is a times
// two exact powers of two, so that autograd records only those products and
// the gradient is PyTorch's g / 2^exponent.
#include "ops/frexp.h"

#include "core/init.h"
#include "math/rows/binary_sub.h"
#include "math/rows/compare_ge.h"
#include "math/rows/compare_logical_and.h"
#include "math/rows/compare_lt.h"
#include "math/rows/compare_ne.h"
#include "math/rows/unary_abs.h"
#include "math/rows/unary_exp2.h"
#include "math/rows/unary_floor.h"
#include "math/rows/unary_isfinite.h"
#include "math/rows/unary_log2.h"
#include "math/rows/unary_neg.h"
#include "math/rows/unary_trunc.h"
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
    const Tensor regular =
        binary(row::logical_and, unary(row::isfinite, x), binary(row::ne, x, scalar_like(0, x)));
    const Tensor ax = where(regular, unary(row::abs, x), scalar_like(1, x));
    // floor(log2|x|) + 1, then corrected by one where log2 rounded across a
    // power of two: 2^(e-1) <= |x| < 2^e (2^(e-1) is at least the smallest
    // subnormal; 2^e may be inf, which every double is below).
    e = add_scalar(unary(row::floor, unary(row::log2, ax)), 1);
    e = where(binary(row::lt, ax, unary(row::exp2, add_scalar(e, -1))), add_scalar(e, -1), e);
    e = where(binary(row::ge, ax, unary(row::exp2, e)), add_scalar(e, 1), e);
    e = where(regular, e, scalar_like(0, x));
    // 2^-e as two factors, each representable in a's dtype (2^-1073 is not
    // even a double, nor 2^149 a float), so both products are exact.
    const Tensor half = unary(row::trunc, mul_scalar(e, 0.5));
    s1 = cast(unary(row::exp2, unary(row::neg, half)), a->dtype);
    s2 = cast(unary(row::exp2, binary(row::sub, half, e)), a->dtype);
  }
  Tensor mantissa = mul(mul(a, s1), s2);
  return {std::move(mantissa), cast(e, DType::i32)};
}

}  // namespace tc::ops
