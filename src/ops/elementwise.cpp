// Elementwise ops with broadcasting and PyTorch's type promotion. Forward kernels
// are lambdas over cpu::map1/map2/map3 (a switch outside the loop, so each inner
// loop is a plain vectorizable one); backward formulas are fused the same way,
// from the formulas of cuda/elementwise_math.h, which the CUDA kernels share.
// CUDA tensors take the same checks and promotion and call src/cuda/'s kernels
// (where float16 and bfloat16 compute too, in float).
#include "cuda/elementwise.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "cpu/dispatch.h"
#include "cpu/loops.h"
#include "cuda/dispatch.h"
#include "init.h"
#include "ops/internal.h"

namespace tc::ops {

using autograd::Grads;
using namespace detail;

namespace {

const char* const kBinaryNames[] = {"add", "sub", "mul", "div", "pow", "maximum", "minimum",
                                    "eq",  "ne",  "lt",  "le",  "gt",  "ge"};
const char* const kBinaryGradNames[] = {"AddBackward", "SubBackward",     "MulBackward",    "DivBackward",
                                        "PowBackward", "MaximumBackward", "MinimumBackward"};

template <typename T>
void binary_kernel(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  using cpu::map2;
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
    cpu::map3<T, T, T, T>(
        out, g, x, y, [](T a, T b, T c) { return T(ew::grad3_value<F>(double(a), double(b), double(c))); });
  });
}
Tensor fused3(Grad f, const Tensor& g, const Tensor& x, const Tensor& y) {
  Tensor out = empty(g->shape, g->dtype, g->device);
  if (on_cuda(g)) {
    TC_CUDA_CALL(cuda::grad3(f, out, g, cast(x, g->dtype), cast(y, g->dtype)));
    return out;
  }
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
  return out;
}

// out = formula(g, x) in g's dtype (x: the saved input or output).
template <Grad F>
void fused2_cpu(const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p) {
  TC_DISPATCH_FLOATING(g->dtype, "backward", [&] {
    using T = scalar_t;
    cpu::map2<T, T, T>(out, g, x, [p](T a, T b) { return ew::grad2_value<F>(a, b, p); });
  });
}
Tensor fused2(Grad f, const Tensor& g, const Tensor& x, const ew::GradParams& p = {}) {
  Tensor out = empty(g->shape, g->dtype, g->device);
  if (on_cuda(g)) {
    TC_CUDA_CALL(cuda::grad2(f, out, g, cast(x, g->dtype), p));
    return out;
  }
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
  return out;
}

// The CPU computes float32, float64 and the integer types (bool where
// allowed); CUDA also float16 and bfloat16 (in float).
void check_dtype(const char* op, const char* arg, const Tensor& t, bool allow_bool) {
  if (!on_cuda(t)) return check_compute_dtype(op, arg, t->dtype, allow_bool);
  TC_CHECK(allow_bool || t->dtype != DType::b8, TC_ERR_DTYPE, op, ": ", arg,
           " is bool, and arithmetic on bool tensors is not supported");
}

// The gradient for an input: summed over broadcast dims, in the input's dtype.
Tensor finish(const Tensor& g, const Dims& shape, DType dtype) {
  return cast(autograd::reduce_to_shape(g, shape), dtype);
}

void check_binary_dtypes(const char* name, const Tensor& a, const Tensor& b, DType ct, bool cmp) {
  const bool half = !on_cuda(a) && (a->dtype == DType::f16 || a->dtype == DType::bf16 ||
                                    b->dtype == DType::f16 || b->dtype == DType::bf16);
  TC_CHECK(!half, TC_ERR_DTYPE, name, ": float16/bfloat16 arithmetic is not supported on the CPU (a is ",
           describe(a), ", b is ", describe(b), "); convert to float32 first");
  TC_CHECK(cmp || ct != DType::b8, TC_ERR_DTYPE, name, ": arithmetic on bool tensors is not supported (a is ",
           describe(a), ", b is ", describe(b), ")");
}

}  // namespace

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  const char* name = kBinaryNames[int(op)];
  check_same_device(name, a, b, true);
  const bool cmp = op >= BinaryOp::eq;
  DType ct = result_type2(a, b);
  check_binary_dtypes(name, a, b, ct, cmp);
  if (op == BinaryOp::div && !is_floating(ct)) ct = default_dtype();
  const Dims shape = a->shape == b->shape ? a->shape : broadcast_shapes(a->shape, b->shape, name);
  const Tensor ac = cast(a, ct), bc = cast(b, ct);
  Tensor out = empty(shape, cmp ? DType::b8 : ct, a->device);
  if (on_cuda(out)) {
    TC_CUDA_CALL(cuda::binary(op, out, ac, bc));
  } else {
    TC_DISPATCH_NUMERIC_OR_BOOL(ct, name, [&] { binary_kernel<scalar_t>(op, out, ac, bc); });
  }
  if (cmp || !autograd::needs_grad({&a, &b})) return out;

  const bool need_a = a->requires_grad, need_b = b->requires_grad;
  const Dims sa = a->shape, sb = b->shape;
  const DType da = a->dtype, db = b->dtype;
  const bool save = op != BinaryOp::add && op != BinaryOp::sub;
  autograd::record_function(
      kBinaryGradNames[int(op)], {a, b}, {out}, save ? std::vector<Tensor>{a, b} : std::vector<Tensor>{},
      [=](const Grads& gs, const std::vector<Tensor>& saved) -> Grads {
        const Tensor& g = gs[0];
        Tensor x = saved.empty() ? nullptr : cast(saved[0], ct),
               y = saved.empty() ? nullptr : cast(saved[1], ct);
        Tensor ga, gb;
        switch (op) {
          case BinaryOp::add:
            ga = g;
            gb = g;
            break;
          case BinaryOp::sub:
            ga = g;
            if (need_b) gb = unary(UnaryOp::neg, g);
            break;
          case BinaryOp::mul:
            if (need_a) ga = mul(g, y);
            if (need_b) gb = mul(g, x);
            break;
          case BinaryOp::div:
            if (need_a) ga = div(g, y);
            if (need_b) gb = fused3(Grad::div_b, g, x, y);
            break;
          case BinaryOp::pow:
            if (need_a) ga = fused3(Grad::pow_a, g, x, y);
            if (need_b) gb = fused3(Grad::pow_b, g, x, y);
            break;
          case BinaryOp::maximum:  // the larger input gets the gradient; ties split it evenly
            if (need_a) ga = fused3(Grad::maximum_a, g, x, y);
            if (need_b) gb = fused3(Grad::maximum_b, g, x, y);
            break;
          case BinaryOp::minimum:
            if (need_a) ga = fused3(Grad::minimum_a, g, x, y);
            if (need_b) gb = fused3(Grad::minimum_b, g, x, y);
            break;
          default:
            break;
        }
        return {need_a && ga ? finish(ga, sa, da) : nullptr, need_b && gb ? finish(gb, sb, db) : nullptr};
      });
  return out;
}

namespace {
const char* const kScalarNames[] = {"add_scalar", "sub_scalar",  "mul_scalar", "div_scalar",
                                    "pow_scalar", "rsub_scalar", "rdiv_scalar"};
const char* const kScalarGradNames[] = {"AddBackward", "SubBackward",  "MulBackward", "DivBackward",
                                        "PowBackward", "RsubBackward", "DivBackward"};

template <typename T>
void scalar_kernel(ScalarOp op, const Tensor& out, const Tensor& a, double sd) {
  using cpu::map1;
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
      if (sd == 2) return map1<T, T>(out, a, [](T x) { return cpu::wrapping_mul(x, x); });
      if (sd == 1) return map1<T, T>(out, a, [](T x) { return x; });
      if (sd == 0.5) return map1<T, T>(out, a, [](T x) { return T(std::sqrt(x)); });
      return map1<T, T>(out, a, [s](T x) { return T(std::pow(x, s)); });
    case ScalarOp::rsub:
      return map1<T, T>(out, a, [s](T x) { return T(s - x); });
    case ScalarOp::rdiv:
      return map1<T, T>(out, a, [s](T x) { return T(s / x); });
  }
}
}  // namespace

Tensor binary_scalar(ScalarOp op, const Tensor& a, double s) {
  const char* name = kScalarNames[int(op)];
  check_same_device(name, a, a, true);
  check_dtype(name, "a", a, true);
  const DType ct = result_type_scalar(a);  // bool/integer tensors become the default float dtype
  const Tensor ac = cast(a, ct);
  Tensor out = empty(a->shape, ct, a->device);
  if (on_cuda(out)) {
    TC_CUDA_CALL(cuda::binary_scalar(op, out, ac, s));
  } else {
    TC_DISPATCH_FLOATING(ct, name, [&] { scalar_kernel<scalar_t>(op, out, ac, s); });
  }
  if (!autograd::needs_grad({&a})) return out;
  const bool save = op == ScalarOp::pow || op == ScalarOp::rdiv;
  autograd::record_function(
      kScalarGradNames[int(op)], {a}, {out}, save ? std::vector<Tensor>{a} : std::vector<Tensor>{},
      [op, s](const Grads& gs, const std::vector<Tensor>& saved) -> Grads {
        const Tensor& g = gs[0];
        switch (op) {
          case ScalarOp::add:
          case ScalarOp::sub:
            return {g};
          case ScalarOp::mul:
            return {mul_scalar(g, s)};
          case ScalarOp::div:
            return {binary_scalar(ScalarOp::div, g, s)};
          case ScalarOp::rsub:
            return {unary(UnaryOp::neg, g)};
          case ScalarOp::pow:
          case ScalarOp::rdiv: {
            ew::GradParams p;
            p.s = s;
            return {fused2(op == ScalarOp::pow ? Grad::pow_scalar : Grad::rdiv_scalar, g, saved[0], p)};
          }
        }
        return {nullptr};
      });
  return out;
}

namespace {
const char* const kUnaryNames[] = {"neg", "abs", "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "gelu"};
// The backward formula of each UnaryOp (neg has none: its gradient is -g).
const Grad kUnaryGrads[] = {Grad::abs,  Grad::abs,     Grad::exp,  Grad::log, Grad::sqrt,
                            Grad::tanh, Grad::sigmoid, Grad::relu, Grad::gelu};
const char* const kUnaryGradNames[] = {"NegBackward",     "AbsBackward",  "ExpBackward",
                                       "LogBackward",     "SqrtBackward", "TanhBackward",
                                       "SigmoidBackward", "ReluBackward", "GeluBackward"};
using ew::kInvSqrt2;

template <typename T>
void unary_kernel(UnaryOp op, const Tensor& out, const Tensor& a) {
  using cpu::map1;
  switch (op) {
    case UnaryOp::neg:
      return map1<T, T>(out, a, [](T x) { return cpu::wrapping_neg(x); });
    case UnaryOp::abs:
      return map1<T, T>(out, a, [](T x) { return x < T(0) ? cpu::wrapping_neg(x) : x; });
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

// Which tensor the backward formula needs: the input, the output or neither.
enum class Save { none, input, output };
Save saves(UnaryOp op) {
  switch (op) {
    case UnaryOp::neg:
      return Save::none;
    case UnaryOp::abs:
    case UnaryOp::log:
    case UnaryOp::gelu:
      return Save::input;
    default:
      return Save::output;
  }
}

Tensor unary_backward(UnaryOp op, const Tensor& g, const Tensor& s) {
  if (op == UnaryOp::neg) return unary(UnaryOp::neg, g);
  return fused2(kUnaryGrads[int(op)], g, s);
}
}  // namespace

Tensor unary(UnaryOp op, const Tensor& a) {
  const char* name = kUnaryNames[int(op)];
  check_same_device(name, a, a, true);
  check_dtype(name, "a", a, false);
  const bool integer_ok = op == UnaryOp::neg || op == UnaryOp::abs || op == UnaryOp::relu;
  TC_CHECK(integer_ok || is_floating(a->dtype), TC_ERR_DTYPE, name,
           ": expected a float32 or float64 tensor but got ", describe(a),
           " (convert integer tensors with tc_to_dtype first)");
  Tensor out = empty(a->shape, a->dtype, a->device);
  if (on_cuda(out)) {
    TC_CUDA_CALL(cuda::unary(op, out, a));
  } else {
    TC_DISPATCH_NUMERIC(a->dtype, name, [&] { unary_kernel<scalar_t>(op, out, a); });
  }
  if (!autograd::needs_grad({&a})) return out;
  const Save what = saves(op);
  std::vector<Tensor> saved;
  if (what == Save::input) saved.push_back(a);
  if (what == Save::output) saved.push_back(autograd::alias(out));
  autograd::record_function(kUnaryGradNames[int(op)], {a}, {out}, std::move(saved),
                            [op](const Grads& g, const std::vector<Tensor>& s) -> Grads {
                              return {unary_backward(op, g[0], s.empty() ? nullptr : s[0])};
                            });
  return out;
}

Tensor clamp(const Tensor& a, double lo, double hi) {
  check_same_device("clamp", a, a, true);
  check_dtype("clamp", "a", a, false);
  const bool has_lo = !std::isnan(lo), has_hi = !std::isnan(hi);
  const bool integral_bounds = (!has_lo || lo == std::floor(lo)) && (!has_hi || hi == std::floor(hi));
  // Like torch.clamp: fractional bounds promote an integer tensor to the default float dtype.
  const DType ct = is_floating(a->dtype) || integral_bounds ? a->dtype : default_dtype();
  const Tensor ac = cast(a, ct);
  Tensor out = empty(a->shape, ct, a->device);
  if (on_cuda(out)) {
    TC_CUDA_CALL(cuda::clamp(out, ac, lo, hi));
  } else {
    TC_DISPATCH_NUMERIC(ct, "clamp", [&] {
      using T = scalar_t;
      // Bounds beyond T's range clamp nothing on that side; converting them
      // as they are would be undefined behaviour (found by the fuzzer).
      const T l = has_lo ? ew::clamp_bound<T>(lo) : T(0), h = has_hi ? ew::clamp_bound<T>(hi) : T(0);
      cpu::map1<T, T>(out, ac, [=](T x) { return ew::clamp_value(x, has_lo, l, has_hi, h); });
    });
  }
  ew::GradParams p;
  p.lo = lo;
  p.hi = hi;
  p.has_lo = has_lo;
  p.has_hi = has_hi;
  autograd::record_function("ClampBackward", {a}, {out}, {a},
                            [p](const Grads& g, const std::vector<Tensor>& s) -> Grads {
                              return {fused2(Grad::clamp, g[0], s[0], p)};
                            });
  return out;
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  check_same_device("where", cond, a, true);
  check_same_device("where", a, b, true);
  TC_CHECK(cond->dtype == DType::b8, TC_ERR_DTYPE, "where: cond must be a bool tensor but is ",
           describe(cond));
  const DType ct = result_type2(a, b);
  check_binary_dtypes("where", a, b, ct, true);
  const Dims shape = broadcast_shapes(cond->shape, broadcast_shapes(a->shape, b->shape, "where"), "where");
  const Tensor ac = cast(a, ct), bc = cast(b, ct);
  Tensor out = empty(shape, ct, a->device);
  if (on_cuda(out)) {
    TC_CUDA_CALL(cuda::where(out, cond, ac, bc));
  } else {
    TC_DISPATCH_NUMERIC_OR_BOOL(ct, "where", [&] {
      using T = scalar_t;
      cpu::map3<T, bool, T, T>(out, cond, ac, bc, [](bool c, T x, T y) { return c ? x : y; });
    });
  }
  if (!autograd::needs_grad({&a, &b})) return out;
  const bool need_a = a->requires_grad, need_b = b->requires_grad;
  const Dims sa = a->shape, sb = b->shape;
  const DType da = a->dtype, db = b->dtype;
  autograd::record_function(
      "WhereBackward", {a, b}, {out}, {cond}, [=](const Grads& gs, const std::vector<Tensor>& s) -> Grads {
        const Tensor& g = gs[0];
        auto pick = [&](bool when) {
          Tensor r = empty(g->shape, g->dtype, g->device);
          if (on_cuda(g)) {
            const Tensor zero = zeros(Dims{}, g->dtype, g->device);
            TC_CUDA_CALL(cuda::where(r, s[0], when ? g : zero, when ? zero : g));
            return r;
          }
          TC_DISPATCH_FLOATING(g->dtype, "WhereBackward", [&] {
            using T = scalar_t;
            cpu::map2<T, T, bool>(r, g, s[0], [when](T x, bool c) { return c == when ? x : T(0); });
          });
          return r;
        };
        return {need_a ? finish(pick(true), sa, da) : nullptr,
                need_b ? finish(pick(false), sb, db) : nullptr};
      });
  return out;
}

}  // namespace tc::ops
