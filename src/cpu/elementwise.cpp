// The CPU's elementwise primitives (src/backend.h): forward kernels are
// lambdas over map1/map2/map3 (a switch outside the loop, so each inner
// loop is a plain vectorizable one); backward formulas are fused the same way,
// from the formulas of math/elementwise_math.h, which the CUDA kernels share.
#include <cmath>
#include <type_traits>

#include "cpu/cpu_backend.h"
#include "cpu/dispatch.h"
#include "cpu/loops.h"

namespace tc::cpu {

using ops::BinaryOp;
using ops::ScalarOp;
using ops::UnaryOp;

namespace {

template <typename T>
void binary_kernel(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  switch (op) {
    case BinaryOp::add:
      return map2<T, T, T>(out, a, b, [](T x, T y) { return ew::binary_value<BinaryOp::add>(x, y); });
    case BinaryOp::sub:
      return map2<T, T, T>(out, a, b, [](T x, T y) { return ew::binary_value<BinaryOp::sub>(x, y); });
    case BinaryOp::mul:
      return map2<T, T, T>(out, a, b, [](T x, T y) { return ew::binary_value<BinaryOp::mul>(x, y); });
    case BinaryOp::div:
      if constexpr (std::is_floating_point_v<T>) {
        return map2<T, T, T>(out, a, b, [](T x, T y) { return T(x / y); });
      }
      break;
    case BinaryOp::pow:
      return map2<T, T, T>(out, a, b, [](T x, T y) { return ew::binary_value<BinaryOp::pow>(x, y); });
    case BinaryOp::maximum:  // NaN propagates, as in torch.maximum
      return map2<T, T, T>(out, a, b, [](T x, T y) { return ew::binary_value<BinaryOp::maximum>(x, y); });
    case BinaryOp::minimum:
      return map2<T, T, T>(out, a, b, [](T x, T y) { return ew::binary_value<BinaryOp::minimum>(x, y); });
    case BinaryOp::eq:
      return map2<bool, T, T>(out, a, b, [](T x, T y) { return x == y; });
    case BinaryOp::ne:
      return map2<bool, T, T>(out, a, b, [](T x, T y) { return x != y; });
    case BinaryOp::lt:
      return map2<bool, T, T>(out, a, b, [](T x, T y) { return x < y; });
    case BinaryOp::le:
      return map2<bool, T, T>(out, a, b, [](T x, T y) { return x <= y; });
    case BinaryOp::gt:
      return map2<bool, T, T>(out, a, b, [](T x, T y) { return x > y; });
    case BinaryOp::ge:
      return map2<bool, T, T>(out, a, b, [](T x, T y) { return x >= y; });
  }
  fail(TC_ERR_INTERNAL, "binary: unhandled op");
}

using ew::Grad;

// A new tensor of g's shape and dtype: out = formula(g, x, y) with x, y
// broadcast, computed in double.
template <Grad F>
void fused3_cpu(const Tensor& out, const Tensor& g, const Tensor& x, const Tensor& y) {
  TC_DISPATCH_FLOATING(g->dtype, "backward", [&] {
    using T = scalar_t;
    map3<T, T, T, T>(out, g, x, y,
                     [](T a, T b, T c) { return T(ew::grad3_value<F>(double(a), double(b), double(c))); });
  });
}
// out = formula(g, x) in g's dtype (x: the saved input or output).
template <Grad F>
void fused2_cpu(const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p) {
  TC_DISPATCH_FLOATING(g->dtype, "backward", [&] {
    using T = scalar_t;
    map2<T, T, T>(out, g, x, [p](T a, T b) { return ew::grad2_value<F>(a, b, p); });
  });
}
template <typename T>
void scalar_kernel(ScalarOp op, const Tensor& out, const Tensor& a, double sd) {
  const T s = T(sd);
  switch (op) {
    case ScalarOp::add:
      return map1<T, T>(out, a, [s](T x) { return T(x + s); });
    case ScalarOp::sub:
      return map1<T, T>(out, a, [s](T x) { return T(x - s); });
    case ScalarOp::mul:
      return map1<T, T>(out, a, [s](T x) { return T(x * s); });
    case ScalarOp::div:
      return map1<T, T>(out, a, [s](T x) { return T(x / s); });
    case ScalarOp::pow:
      if (sd == 2) return map1<T, T>(out, a, [](T x) { return wrapping_mul(x, x); });
      if (sd == 1) return map1<T, T>(out, a, [](T x) { return x; });
      if (sd == 0.5) return map1<T, T>(out, a, [](T x) { return T(std::sqrt(x)); });
      return map1<T, T>(out, a, [s](T x) { return T(std::pow(x, s)); });
    case ScalarOp::rsub:
      return map1<T, T>(out, a, [s](T x) { return T(s - x); });
    case ScalarOp::rdiv:
      return map1<T, T>(out, a, [s](T x) { return T(s / x); });
  }
}
using ew::kInvSqrt2;

template <typename T>
void unary_kernel(UnaryOp op, const Tensor& out, const Tensor& a) {
  switch (op) {
    case UnaryOp::neg:
      return map1<T, T>(out, a, [](T x) { return wrapping_neg(x); });
    case UnaryOp::abs:
      return map1<T, T>(out, a, [](T x) { return x < T(0) ? wrapping_neg(x) : x; });
    case UnaryOp::relu:
      return map1<T, T>(out, a, [](T x) { return x < T(0) ? T(0) : x; });
    default:
      break;
  }
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case UnaryOp::exp:
        return map1<T, T>(out, a, [](T x) { return std::exp(x); });
      case UnaryOp::log:
        return map1<T, T>(out, a, [](T x) { return std::log(x); });
      case UnaryOp::sqrt:
        return map1<T, T>(out, a, [](T x) { return std::sqrt(x); });
      case UnaryOp::tanh:
        return map1<T, T>(out, a, [](T x) { return std::tanh(x); });
      case UnaryOp::sigmoid:
        return map1<T, T>(out, a, [](T x) { return T(1) / (T(1) + std::exp(-x)); });
      case UnaryOp::gelu:
        return map1<T, T>(out, a, [](T x) { return T(0.5) * x * (T(1) + std::erf(x * T(kInvSqrt2))); });
      default:
        break;
    }
  }
  fail(TC_ERR_INTERNAL, "unary: unhandled op");
}

}  // namespace

void CpuBackend::binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) const {
  TC_DISPATCH_NUMERIC_OR_BOOL(a->dtype, "binary", [&] { binary_kernel<scalar_t>(op, out, a, b); });
}

void CpuBackend::binary_scalar(ScalarOp op, const Tensor& out, const Tensor& a, double s) const {
  TC_DISPATCH_FLOATING(a->dtype, "binary_scalar", [&] { scalar_kernel<scalar_t>(op, out, a, s); });
}

void CpuBackend::unary(UnaryOp op, const Tensor& out, const Tensor& a) const {
  TC_DISPATCH_NUMERIC(a->dtype, "unary", [&] { unary_kernel<scalar_t>(op, out, a); });
}

void CpuBackend::clamp(const Tensor& out, const Tensor& a, double lo, double hi) const {
  const bool has_lo = !std::isnan(lo), has_hi = !std::isnan(hi);
  TC_DISPATCH_NUMERIC(a->dtype, "clamp", [&] {
    using T = scalar_t;
    // Bounds beyond T's range clamp nothing on that side; converting them
    // as they are would be undefined behaviour (found by the fuzzer).
    const T l = has_lo ? ew::clamp_bound<T>(lo) : T(0), h = has_hi ? ew::clamp_bound<T>(hi) : T(0);
    map1<T, T>(out, a, [=](T x) { return ew::clamp_value(x, has_lo, l, has_hi, h); });
  });
}

void CpuBackend::where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) const {
  TC_DISPATCH_NUMERIC_OR_BOOL(a->dtype, "where", [&] {
    using T = scalar_t;
    map3<T, bool, T, T>(out, cond, a, b, [](bool c, T x, T y) { return c ? x : y; });
  });
}

void CpuBackend::grad3(Grad f, const Tensor& out, const Tensor& g, const Tensor& x, const Tensor& y) const {
  switch (f) {
    case Grad::div_b:
      fused3_cpu<Grad::div_b>(out, g, x, y);
      break;
    case Grad::pow_a:
      fused3_cpu<Grad::pow_a>(out, g, x, y);
      break;
    case Grad::pow_b:
      fused3_cpu<Grad::pow_b>(out, g, x, y);
      break;
    case Grad::maximum_a:
      fused3_cpu<Grad::maximum_a>(out, g, x, y);
      break;
    case Grad::maximum_b:
      fused3_cpu<Grad::maximum_b>(out, g, x, y);
      break;
    case Grad::minimum_a:
      fused3_cpu<Grad::minimum_a>(out, g, x, y);
      break;
    case Grad::minimum_b:
      fused3_cpu<Grad::minimum_b>(out, g, x, y);
      break;
    default:
      fail(TC_ERR_INTERNAL, "fused3: not a three-operand formula");
  }
}

void CpuBackend::grad2(Grad f, const Tensor& out, const Tensor& g, const Tensor& x,
                       const ew::GradParams& p) const {
  switch (f) {
    case Grad::pow_scalar:
      fused2_cpu<Grad::pow_scalar>(out, g, x, p);
      break;
    case Grad::rdiv_scalar:
      fused2_cpu<Grad::rdiv_scalar>(out, g, x, p);
      break;
    case Grad::abs:
      fused2_cpu<Grad::abs>(out, g, x, p);
      break;
    case Grad::exp:
      fused2_cpu<Grad::exp>(out, g, x, p);
      break;
    case Grad::log:
      fused2_cpu<Grad::log>(out, g, x, p);
      break;
    case Grad::sqrt:
      fused2_cpu<Grad::sqrt>(out, g, x, p);
      break;
    case Grad::tanh:
      fused2_cpu<Grad::tanh>(out, g, x, p);
      break;
    case Grad::sigmoid:
      fused2_cpu<Grad::sigmoid>(out, g, x, p);
      break;
    case Grad::relu:
      fused2_cpu<Grad::relu>(out, g, x, p);
      break;
    case Grad::gelu:
      fused2_cpu<Grad::gelu>(out, g, x, p);
      break;
    case Grad::clamp:
      fused2_cpu<Grad::clamp>(out, g, x, p);
      break;
    default:
      fail(TC_ERR_INTERNAL, "fused2: not a two-operand formula");
  }
}

void CpuBackend::copy(const Tensor& dst, const Tensor& src) const { copy_into(dst, src); }

}  // namespace tc::cpu
