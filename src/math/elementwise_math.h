// The per-element math of the elementwise ops, shared by the CUDA kernels
// (src/cuda/elementwise.cu) and the CPU: the backward formulas here are the
// ones the CPU's autograd runs (src/ops/elementwise.cpp), and the forward
// values replicate the CPU kernels' lambdas operation for operation, so the
// CPU tests (tests/gtest/test_cuda_math_host.cpp) check the very code the GPU
// runs against the CPU ops. Everything is TC_HD (cuda/hd.h).
//
// The compute types and scalar helpers the formulas use are in
// math/compute_math.h; this header has what depends on the rows.
#pragma once
#include "math/binary_rows.h"  // the binary rows' dtypes and gradient columns
#include "math/ew_row_math.h"  // the formulas' helpers and the row-struct macros
#include "math/op_enums.h"
#include "math/scalar_rows.h"  // ScalarDef: the scalar rows

namespace tc::ew {

// ---- forward values ----

using ops::BinaryOp;
using ops::ScalarOp;
using ops::UnaryOp;

// The arithmetic BinaryOps (binary_ops.def: one row each), chosen at compile
// time: BinaryDef<OP>::forward is the row's forward expression.
template <BinaryOp OP>
struct BinaryDef;
#define TC_BINARY_OP(name, GradName, saves, a_is_g, b_is_g, dtypes, diff, forward, grad_a, grad_b) \
  template <>                                                                                      \
  struct BinaryDef<BinaryOp::name> {                                                               \
    TC_EW_BINARY_DEF_BODY(forward)                                                                 \
  };
#include "math/binary_ops.def"

template <BinaryOp OP, typename C>
TC_HD inline C binary_value(C x, C y) {
  static_assert(int(OP) < ops::kArithmeticBinaryOps, "binary_value: not an arithmetic op");
  return BinaryDef<OP>::template value<C>(x, y);
}
// The same with the op chosen at run time (the integer kernels: one kernel per
// dtype instead of one per op and dtype). Comparisons give 0 (never asked).
template <typename C>
TC_HD inline C binary_value(BinaryOp op, C x, C y) {
  switch (op) {
#define TC_BINARY_OP(name, ...) \
  case BinaryOp::name:          \
    return binary_value<BinaryOp::name>(x, y);
#include "math/binary_ops.def"
#define TC_COMPARE_OP(name, ...) case BinaryOp::name:
#include "math/compare_ops.def"
    case BinaryOp::count_:
      break;
  }
  return C(0);
}

// The comparisons (compare_ops.def); arithmetic ops give false (never asked).
template <typename C>
TC_HD inline bool compare_value(BinaryOp op, C x, C y) {
  switch (op) {
#define TC_COMPARE_OP(name, forward) \
  case BinaryOp::name:               \
    return forward;
#include "math/compare_ops.def"
#define TC_BINARY_OP(name, ...) case BinaryOp::name:
#include "math/binary_ops.def"
    case BinaryOp::count_:
      break;
  }
  return false;
}

// The UnaryOps (unary_ops.def: one row each). UnaryDef<OP>: the row's
// forward (value) and backward (grad: g and the saved input x or output y)
// expressions, with the parameters p and q (the row's defaults p0, q0 unless
// tc_<name> passes them), the dtypes it takes, whether it gives a bool tensor
// and has a gradient and what the backward saves. (The domain column is where
// tests sample: math/op_domains.h, generated from the same table.)
template <UnaryOp OP>
struct UnaryDef;
#define TC_UNARY_OP(name, GradName, dtypes_, bool_result_, diff_, save_, domain_, p0_, q0_, forward, \
                    backward)                                                                        \
  template <>                                                                                        \
  struct UnaryDef<UnaryOp::name> {                                                                   \
    TC_EW_UNARY_DEF_BODY(dtypes_, bool_result_, diff_, save_, p0_, q0_, forward, backward)           \
  };
#include "math/unary_ops.def"

// The row's value with its default parameters, or with p and q.
template <UnaryOp OP, typename C>
TC_HD inline TC_EW_HOST_INLINE C unary_value(C x) {
  return UnaryDef<OP>::template value<C>(x, C(UnaryDef<OP>::p0), C(UnaryDef<OP>::q0));
}
template <UnaryOp OP, typename C>
TC_HD inline TC_EW_HOST_INLINE C unary_value(C x, C p, C q) {
  return UnaryDef<OP>::template value<C>(x, p, q);
}
template <typename C>
TC_HD inline C unary_value(UnaryOp op, C x, C p, C q) {
  switch (op) {
#define TC_UNARY_OP(name, ...) \
  case UnaryOp::name:          \
    return unary_value<UnaryOp::name>(x, p, q);
#include "math/unary_ops.def"
    case UnaryOp::count_:
      break;
  }
  return x;
}
template <typename C>
TC_HD inline C unary_value(UnaryOp op, C x) {
  switch (op) {
#define TC_UNARY_OP(name, ...) \
  case UnaryOp::name:          \
    return unary_value<UnaryOp::name>(x);
#include "math/unary_ops.def"
    case UnaryOp::count_:
      break;
  }
  return x;
}
// A row's flags at run time.
struct UnaryInfo {
  UnaryDtypes dtypes;
  bool ints, floats, bools, bool_result, differentiable;
  Save save;
  double p0, q0;
};
constexpr UnaryInfo unary_info(UnaryOp op) {
  switch (op) {
#define TC_UNARY_OP(name, ...)                                                        \
  case UnaryOp::name: {                                                               \
    using D = UnaryDef<UnaryOp::name>;                                                \
    return UnaryInfo{D::dtypes,         D::ints, D::floats, D::bools, D::bool_result, \
                     D::differentiable, D::save, D::p0,     D::q0};                   \
  }
#include "math/unary_ops.def"
    case UnaryOp::count_:
      break;
  }
  return UnaryInfo{UnaryDtypes::any, false, false, false, false, false, Save::none, 0, 0};
}
constexpr bool unary_ints(UnaryOp op) { return unary_info(op).ints; }
constexpr Save unary_save(UnaryOp op) { return unary_info(op).save; }
constexpr bool unary_differentiable(UnaryOp op) { return unary_info(op).differentiable; }

// ---- backward formulas ----
// Named once, here; src/ops/elementwise.cpp's autograd runs them through the
// CPU loops, src/cuda/elementwise.cu through its kernels.
enum class Grad : int32_t {
// Three operands (g, x, y), computed in double whatever the dtype: the
// gradients of the arithmetic BinaryOps (binary_ops.def), <op>_a and <op>_b.
#define TC_BINARY_OP(name, ...) name##_a, name##_b,
#include "math/binary_ops.def"
  // Two operands (g and the saved input x or output y), in the compute type:
  pow_scalar,   // d(x ^ s)/dx
  rdiv_scalar,  // d(s / x)/dx
  clamp,        // x saved; g where lo <= x <= hi (NaN bound = none)
// ... and one per UnaryOp (unary_ops.def), of the same name.
#define TC_UNARY_OP(name, ...) name,
#include "math/unary_ops.def"
  count_
};
constexpr bool is_grad3(Grad f) { return f < Grad::pow_scalar; }
static_assert(int(Grad::pow_scalar) == 2 * ops::kArithmeticBinaryOps, "two formulas per binary op");
static_assert(int(Grad::count_) == int(Grad::clamp) + 1 + int(UnaryOp::count_), "one formula per unary op");

// A binary op's formula for its first or second input.
constexpr Grad binary_grad(BinaryOp op, bool second) { return Grad(2 * int(op) + (second ? 1 : 0)); }
// A unary op's formula.
constexpr Grad unary_grad(UnaryOp op) { return Grad(int(Grad::clamp) + 1 + int(op)); }

// One formula of three operands, chosen at compile time (the CPU's loops,
// which then vectorize) or at run time (the CUDA kernels: one per dtype).
template <Grad F>
struct Grad3Def;
#define TC_BINARY_OP(name, GradName, saves, a_is_g, b_is_g, dtypes, diff, forward, grad_a, grad_b) \
  template <>                                                                                      \
  struct Grad3Def<Grad::name##_a> {                                                                \
    TC_EW_GRAD3_BODY(grad_a)                                                                       \
  };                                                                                               \
  template <>                                                                                      \
  struct Grad3Def<Grad::name##_b> {                                                                \
    TC_EW_GRAD3_BODY(grad_b)                                                                       \
  };
#include "math/binary_ops.def"

template <Grad F>
TC_HD inline double grad3_value(double g, double x, double y) {
  return Grad3Def<F>::value(g, x, y);
}
TC_HD inline double grad3_value(Grad f, double g, double x, double y) {
  switch (f) {
#define TC_BINARY_OP(name, ...)                  \
  case Grad::name##_a:                           \
    return grad3_value<Grad::name##_a>(g, x, y); \
  case Grad::name##_b:                           \
    return grad3_value<Grad::name##_b>(g, x, y);
#include "math/binary_ops.def"
    case Grad::pow_scalar:
    case Grad::rdiv_scalar:
    case Grad::clamp:
#define TC_UNARY_OP(name, ...) case Grad::name:
#include "math/unary_ops.def"
    case Grad::count_:
      break;
  }
  return 0.0;  // not a three-operand formula
}

// C: float (float32, float16, bfloat16) or double (math/ew_row_math.h).
template <Grad F, typename C>
TC_HD inline TC_EW_HOST_INLINE C grad2_value(C g, C x, const GradParams& p) {
  if constexpr (F == Grad::pow_scalar) {
    return pow_scalar_grad2_value(g, x, p);
  } else if constexpr (F == Grad::rdiv_scalar) {
    return rdiv_scalar_grad2_value(g, x, p);
  } else if constexpr (F == Grad::clamp) {
    return clamp_grad2_value(g, x, p);
  } else {
    static_assert(F > Grad::clamp && F < Grad::count_, "grad2_value: not a two-operand formula");
    constexpr UnaryOp op = static_cast<UnaryOp>(static_cast<int>(F) - static_cast<int>(Grad::clamp) - 1);
    return unary_grad2_value<UnaryDef<op>>(g, x, p);
  }
}
template <typename C>
TC_HD inline C grad2_value(Grad f, C g, C x, const GradParams& p) {
  switch (f) {
    case Grad::pow_scalar:
      return grad2_value<Grad::pow_scalar>(g, x, p);
    case Grad::rdiv_scalar:
      return grad2_value<Grad::rdiv_scalar>(g, x, p);
    case Grad::clamp:
      return grad2_value<Grad::clamp>(g, x, p);
#define TC_UNARY_OP(name, ...) \
  case Grad::name:             \
    return grad2_value<Grad::name>(g, x, p);
#include "math/unary_ops.def"
#define TC_BINARY_OP(name, ...) \
  case Grad::name##_a:          \
  case Grad::name##_b:
#include "math/binary_ops.def"
    case Grad::count_:
      break;
  }
  return C(0);  // not a two-operand formula
}

}  // namespace tc::ew
