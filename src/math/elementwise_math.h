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
#include "math/compute_math.h"
#include "math/op_enums.h"
// These two use the compute types above and include nothing themselves.
#include "math/binary_ext_math.h"  // helpers of the binary rows (lerp, hypot, logaddexp, ...)
#include "math/gelu_math.h"        // the gelu row's vectorizable float erf
#include "math/special_math.h"     // lgamma, digamma, Bessel, igamma, gcd, ... (torch.special)

namespace tc::ew {

// The CPU's elementwise loops vectorize only when the row's whole formula is
// inlined into them; an out-of-line copy of these header templates would
// also be one function for every CPU kernel set (the linker keeps the
// baseline's, CMakeLists.txt). So on the host they are always inlined.
#if defined(__CUDACC__)
#define TC_EW_HOST_INLINE
#else
#define TC_EW_HOST_INLINE __attribute__((always_inline))
#endif

// ---- forward values ----

using ops::BinaryOp;
using ops::ScalarOp;
using ops::UnaryOp;

// Helpers of the forward formulas in binary_ops.def. Division is only ever
// computed in a floating type (integer operands promote first).
template <typename C>
TC_HD inline C div_value(C x, C y) {
  if constexpr (is_float_compute<C>) {
    return C(x / y);
  } else {
    (void)x;
    (void)y;
    return C(0);  // unreachable: see above
  }
}
template <typename C>
TC_HD inline C pow_value(C x, C y) {
  if constexpr (is_float_compute<C>) {
    return m_pow(x, y);
  } else {
    return int_pow(x, y);
  }
}

// The arithmetic BinaryOps (binary_ops.def: one row each), chosen at compile
// time: BinaryDef<OP>::forward is the row's forward expression.
template <BinaryOp OP>
struct BinaryDef;
#define TC_BINARY_OP(name, GradName, saves, a_is_g, b_is_g, dtypes, diff, forward, grad_a, grad_b) \
  template <>                                                                                      \
  struct BinaryDef<BinaryOp::name> {                                                               \
    template <typename C>                                                                          \
    static TC_HD C value(C x, C y) {                                                               \
      return forward;                                                                              \
    }                                                                                              \
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

// pow by a scalar: the CPU's special cases, chosen once on the host.
enum class PowMode : int32_t { general, square, identity, sqrt };
inline PowMode pow_mode(double s) {
  return s == 2 ? PowMode::square : s == 1 ? PowMode::identity : s == 0.5 ? PowMode::sqrt : PowMode::general;
}
template <typename C>
TC_HD inline C pow_scalar_value(C x, C s, PowMode mode) {
  switch (mode) {
    case PowMode::square:
      return wrapping_mul(x, x);
    case PowMode::identity:
      return x;
    case PowMode::sqrt:
      return m_sqrt(x);
    case PowMode::general:
      break;
  }
  return m_pow(x, s);
}

// x (op) s, s already converted to the compute type (as the CPU's T(s));
// scalar_ops.def has the rows.
template <ScalarOp OP>
struct ScalarDef;
#define TC_SCALAR_OP(name, GradName, forward)      \
  template <>                                      \
  struct ScalarDef<ScalarOp::name> {               \
    template <typename C>                          \
    static TC_HD C value(C x, C s, PowMode mode) { \
      (void)mode;                                  \
      return forward;                              \
    }                                              \
  };
#include "math/scalar_ops.def"
template <ScalarOp OP, typename C>
TC_HD inline C scalar_value(C x, C s, PowMode mode) {
  return ScalarDef<OP>::template value<C>(x, s, mode);
}

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

// What each UnaryOp's backward reads.
enum class Save : int32_t { none, input, output };
// The dtypes a UnaryOp takes (unary_ops.def's dtypes column).
enum class UnaryDtypes : int32_t {
  floating = 0,  // float dtypes; integer and bool inputs promote to the default float dtype
  numeric = 1,   // float and integer dtypes
  integral = 2,  // integer dtypes and bool
  any = 3,       // every dtype
};
// The UnaryOps (unary_ops.def: one row each). UnaryDef<OP>: the row's
// forward (value) and backward (grad: g and the saved input x or output y)
// expressions, with the parameters p and q (the row's defaults p0, q0 unless
// tc_<name> passes them), the dtypes it takes, whether it gives a bool tensor
// and has a gradient and what the backward saves. (The domain column is where
// tests sample: math/op_domains.h, generated from the same table.)
template <UnaryOp OP>
struct UnaryDef;
#define TC_UNARY_BIND_none(s) (void)s;
#define TC_UNARY_BIND_input(s) const C x = s;
#define TC_UNARY_BIND_output(s) const C y = s;
#define TC_UNARY_OP(name, GradName, dtypes_, bool_result_, diff_, save_, domain_, p0_, q0_, forward, \
                    backward)                                                                        \
  template <>                                                                                        \
  struct UnaryDef<UnaryOp::name> {                                                                   \
    static constexpr UnaryDtypes dtypes = UnaryDtypes(dtypes_);                                      \
    static constexpr bool ints = dtypes_ != 0;   /* computes integer dtypes */                       \
    static constexpr bool floats = dtypes_ != 2; /* computes floating dtypes */                      \
    static constexpr bool bools = dtypes_ >= 2;  /* takes bool tensors */                            \
    static constexpr bool bool_result = bool_result_;                                                \
    static constexpr bool differentiable = diff_;                                                    \
    static constexpr Save save = Save::save_;                                                        \
    static constexpr double p0 = p0_, q0 = q0_;                                                      \
    template <typename C>                                                                            \
    static constexpr bool computes = std::is_same_v<C, bool> ? bools                                 \
                                     : is_float_compute<C>   ? floats                                \
                                                             : ints;                                   \
    template <typename C>                                                                            \
    static TC_HD TC_EW_HOST_INLINE C value(C x, C p, C q) {                                          \
      (void)p;                                                                                       \
      (void)q;                                                                                       \
      if constexpr (computes<C>) {                                                                   \
        return C(forward);                                                                           \
      } else {                                                                                       \
        return x; /* unreachable: the op rejects (or promotes) these dtypes */                       \
      }                                                                                              \
    }                                                                                                \
    template <typename C>                                                                            \
    static TC_HD TC_EW_HOST_INLINE C grad(C g, C saved, C p, C q) {                                  \
      (void)p;                                                                                       \
      (void)q;                                                                                       \
      (void)g;                                                                                       \
      if constexpr (is_float_compute<C>) {                                                           \
        TC_UNARY_BIND_##save_(saved) return C(backward);                                             \
      } else {                                                                                       \
        (void)saved;                                                                                 \
        return C(0); /* gradients are floating */                                                    \
      }                                                                                              \
    }                                                                                                \
  };
#include "math/unary_ops.def"
#undef TC_UNARY_BIND_none
#undef TC_UNARY_BIND_input
#undef TC_UNARY_BIND_output

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

// A clamp bound as compute type C. Bounds beyond an integer type's range
// clamp nothing on that side (converting them would be UB), as on the CPU.
template <typename C>
inline C clamp_bound(double v) {
  if constexpr (std::is_integral_v<C>) {
    if (v <= IntLimits<C>::lo) return C(IntLimits<C>::lo);
    if (v >= IntLimits<C>::hi) return std::is_same_v<C, int64_t> ? C(INT64_MAX) : C(IntLimits<C>::hi);
  }
  return C(v);
}
template <typename C>
TC_HD inline C clamp_value(C x, bool has_lo, C lo, bool has_hi, C hi) {
  if (has_lo && x < lo) x = lo;
  if (has_hi && x > hi) x = hi;
  return x;
}

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
    static TC_HD double value(double g, double x, double y) {                                      \
      (void)g; /* rows with a zero gradient (floor_divide) */                                      \
      (void)x;                                                                                     \
      (void)y;                                                                                     \
      return grad_a;                                                                               \
    }                                                                                              \
  };                                                                                               \
  template <>                                                                                      \
  struct Grad3Def<Grad::name##_b> {                                                                \
    static TC_HD double value(double g, double x, double y) {                                      \
      (void)g; /* rows with a zero gradient (floor_divide) */                                      \
      (void)x;                                                                                     \
      (void)y;                                                                                     \
      return grad_b;                                                                               \
    }                                                                                              \
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

// C: float (float32, float16, bfloat16) or double. The mixed float/double
// arithmetic is the CPU's as it always was (its lambdas took the scalar as a
// double).
template <Grad F, typename C>
TC_HD inline TC_EW_HOST_INLINE C grad2_value(C g, C x, const GradParams& p) {
  if constexpr (F == Grad::pow_scalar) {
    return p.s == 0 ? C(0) : C(double(g) * p.s * ::pow(double(x), p.s - 1));
  } else if constexpr (F == Grad::rdiv_scalar) {
    return C(double(-g) * p.s / double(x * x));
  } else if constexpr (F == Grad::clamp) {
    const bool inside = (!p.has_lo || double(x) >= p.lo) && (!p.has_hi || double(x) <= p.hi);
    return inside ? g : C(0);
  } else {
    static_assert(F > Grad::clamp && F < Grad::count_, "grad2_value: not a two-operand formula");
    constexpr UnaryOp op = static_cast<UnaryOp>(static_cast<int>(F) - static_cast<int>(Grad::clamp) - 1);
    using D = UnaryDef<op>;
    return D::template grad<C>(g, x, C(p.unary_params ? p.up : D::p0), C(p.unary_params ? p.uq : D::q0));
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
