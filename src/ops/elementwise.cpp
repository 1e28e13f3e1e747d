// Elementwise ops with broadcasting and PyTorch's type promotion. Forward kernels
// are lambdas over cpu::map1/map2/map3 (a switch outside the loop, so each inner
// loop is a plain vectorizable one); backward formulas are fused the same way,
// from the formulas of cuda/elementwise_math.h, which the CUDA kernels share.
// CUDA tensors take the same checks and promotion and call src/cuda/'s kernels
// (where float16 and bfloat16 compute too, in float).
#include "cuda/elementwise.h"

#include <cmath>
#include <iterator>
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

// Indexed by BinaryOp: sized by count_, filled from the .def rows.
const char* const kBinaryNames[] = {
#define TC_BINARY_OP(name, ...) #name,
#include "math/binary_ops.def"
#define TC_COMPARE_OP(name, ...) #name,
#include "math/compare_ops.def"
};
static_assert(std::size(kBinaryNames) == size_t(BinaryOp::count_));
const char* const kBinaryGradNames[] = {
#define TC_BINARY_OP(name, GradName, ...) #GradName,
#include "math/binary_ops.def"
};
static_assert(std::size(kBinaryGradNames) == size_t(kArithmeticBinaryOps));
// Whether an op's gradients read its inputs, and which gradients are g itself.
struct BinaryGradInfo {
  bool saves, a_is_g, b_is_g;
};
constexpr BinaryGradInfo kBinaryGradInfo[] = {
#define TC_BINARY_OP(name, GradName, saves, a_is_g, b_is_g, ...) {saves != 0, a_is_g != 0, b_is_g != 0},
#include "math/binary_ops.def"
};

template <typename T>
void binary_kernel(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  using cpu::map2;
  switch (op) {
#define TC_BINARY_OP(name, ...) \
  case BinaryOp::name:          \
    return map2<T, T, T>(out, a, b, [](T x, T y) { return ew::binary_value<BinaryOp::name>(x, y); });
#include "math/binary_ops.def"
#define TC_COMPARE_OP(name, ...) \
  case BinaryOp::name:           \
    return map2<bool, T, T>(out, a, b, [](T x, T y) { return ew::compare_value(BinaryOp::name, x, y); });
#include "math/compare_ops.def"
    case BinaryOp::count_:
      break;
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
#define TC_BINARY_OP(name, ...)               \
  case Grad::name##_a:                        \
    fused3_cpu<Grad::name##_a>(out, g, x, y); \
    return out;                               \
  case Grad::name##_b:                        \
    fused3_cpu<Grad::name##_b>(out, g, x, y); \
    return out;
#include "math/binary_ops.def"
    case Grad::pow_scalar:
    case Grad::rdiv_scalar:
    case Grad::clamp:
#define TC_UNARY_OP(name, ...) case Grad::name:
#include "math/unary_ops.def"
    case Grad::count_:
      break;
  }
  fail(TC_ERR_INTERNAL, "fused3: not a three-operand formula");
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
      return out;
    case Grad::rdiv_scalar:
      fused2_cpu<Grad::rdiv_scalar>(out, g, x, p);
      return out;
    case Grad::clamp:
      fused2_cpu<Grad::clamp>(out, g, x, p);
      return out;
#define TC_UNARY_OP(name, ...)            \
  case Grad::name:                        \
    fused2_cpu<Grad::name>(out, g, x, p); \
    return out;
#include "math/unary_ops.def"
#define TC_BINARY_OP(name, ...) \
  case Grad::name##_a:          \
  case Grad::name##_b:
#include "math/binary_ops.def"
    case Grad::count_:
      break;
  }
  fail(TC_ERR_INTERNAL, "fused2: not a two-operand formula");
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
  const bool cmp = is_comparison(op);
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
  const BinaryGradInfo info = kBinaryGradInfo[int(op)];
  autograd::record_function(
      kBinaryGradNames[int(op)], {a, b}, {out},
      info.saves ? std::vector<Tensor>{a, b} : std::vector<Tensor>{},
      [=](const Grads& gs, const std::vector<Tensor>& saved) -> Grads {
        const Tensor& g = gs[0];
        // Formulas that read neither input get g in their place (unused).
        const Tensor x = saved.empty() ? g : cast(saved[0], ct), y = saved.empty() ? g : cast(saved[1], ct);
        Tensor ga, gb;
        if (need_a) ga = info.a_is_g ? g : fused3(ew::binary_grad(op, false), g, x, y);
        if (need_b) gb = info.b_is_g ? g : fused3(ew::binary_grad(op, true), g, x, y);
        return {need_a && ga ? finish(ga, sa, da) : nullptr, need_b && gb ? finish(gb, sb, db) : nullptr};
      });
  return out;
}

namespace {
const char* const kScalarNames[] = {
#define TC_SCALAR_OP(name, ...) #name "_scalar",
#include "math/scalar_ops.def"
};
static_assert(std::size(kScalarNames) == size_t(ScalarOp::count_));
const char* const kScalarGradNames[] = {
#define TC_SCALAR_OP(name, GradName, ...) #GradName,
#include "math/scalar_ops.def"
};
static_assert(std::size(kScalarGradNames) == size_t(ScalarOp::count_));

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
    case ScalarOp::count_:
      break;
  }
  fail(TC_ERR_INTERNAL, "binary_scalar: unhandled op");
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
          case ScalarOp::count_:
            break;
        }
        return {nullptr};
      });
  return out;
}

namespace {
// Indexed by UnaryOp: sized by count_, filled from unary_ops.def's rows.
const char* const kUnaryNames[] = {
#define TC_UNARY_OP(name, ...) #name,
#include "math/unary_ops.def"
};
static_assert(std::size(kUnaryNames) == size_t(UnaryOp::count_));
const char* const kUnaryGradNames[] = {
#define TC_UNARY_OP(name, GradName, ...) #GradName,
#include "math/unary_ops.def"
};
static_assert(std::size(kUnaryGradNames) == size_t(UnaryOp::count_));

// The forward: the row's formula (ew::unary_value), instantiated only for the
// dtypes the op allows.
template <typename T>
void unary_kernel(UnaryOp op, const Tensor& out, const Tensor& a) {
  switch (op) {
#define TC_UNARY_OP(name, ...)                                                               \
  case UnaryOp::name:                                                                        \
    if constexpr (ew::UnaryDef<UnaryOp::name>::ints || std::is_floating_point_v<T>) {        \
      return cpu::map1<T, T>(out, a, [](T x) { return ew::unary_value<UnaryOp::name>(x); }); \
    }                                                                                        \
    break;
#include "math/unary_ops.def"
    case UnaryOp::count_:
      break;
  }
  fail(TC_ERR_INTERNAL, "unary: unhandled op");
}
}  // namespace

Tensor unary(UnaryOp op, const Tensor& a) {
  TC_CHECK(int(op) >= 0 && op < UnaryOp::count_, TC_ERR_INTERNAL, "unary: op ", int(op), " out of range");
  const char* name = kUnaryNames[int(op)];
  check_same_device(name, a, a, true);
  check_dtype(name, "a", a, false);
  TC_CHECK(ew::unary_ints(op) || is_floating(a->dtype), TC_ERR_DTYPE, name,
           ": expected a float32 or float64 tensor but got ", describe(a),
           " (convert integer tensors with tc_to_dtype first)");
  Tensor out = empty(a->shape, a->dtype, a->device);
  if (on_cuda(out)) {
    TC_CUDA_CALL(cuda::unary(op, out, a));
  } else {
    TC_DISPATCH_NUMERIC(a->dtype, name, [&] { unary_kernel<scalar_t>(op, out, a); });
  }
  if (!autograd::needs_grad({&a})) return out;
  const ew::Save what = ew::unary_save(op);
  std::vector<Tensor> saved;
  if (what == ew::Save::input) saved.push_back(a);
  if (what == ew::Save::output) saved.push_back(autograd::alias(out));
  autograd::record_function(kUnaryGradNames[int(op)], {a}, {out}, std::move(saved),
                            [op](const Grads& g, const std::vector<Tensor>& s) -> Grads {
                              // Formulas that save nothing get g in its place (unused).
                              return {fused2(ew::unary_grad(op), g[0], s.empty() ? g[0] : s[0])};
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
