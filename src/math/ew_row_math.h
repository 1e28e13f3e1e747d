// The per-element math of one elementwise row, without the row enums: the
// helpers the formulas of ops/ops.toml call (math/compute_math.h and the
// topic headers), the row-independent helpers (division, pow by a scalar,
// clamp) and the macros that turn one row's formulas into a struct
// (TC_EW_UNARY_DEF_BODY, TC_EW_BINARY_DEF_BODY, TC_EW_GRAD3_BODY). Both
// math/elementwise_math.h (UnaryDef<UnaryOp::name>: the CUDA kernels and the
// ops) and the generated per-row CPU kernels (src/cpu/rows/) expand these
// macros, so each formula has one definition. Includes no .def file and no
// enum of the rows: a per-row kernel file that includes this header does not
// rebuild when another row is added to the table.
#pragma once
#include <type_traits>

#include "math/compute_math.h"
#include "math/op_kinds.h"
// These use the compute types above and include nothing themselves.
#include "math/binary_ext_math.h"  // helpers of the binary rows (lerp, hypot, logaddexp, ...)
#include "math/gelu_math.h"        // the gelu row's vectorizable float erf
#include "math/special_math.h"     // lgamma, digamma, Bessel, igamma, gcd, ... (torch.special)

// The CPU's elementwise loops vectorize only when the row's whole formula is
// inlined into them; an out-of-line copy of these header templates would
// also be one function for every CPU kernel set (the linker keeps the
// baseline's, CMakeLists.txt). So on the host they are always inlined.
#if defined(__CUDACC__)
#define TC_EW_HOST_INLINE
#else
#define TC_EW_HOST_INLINE __attribute__((always_inline))
#endif

namespace tc::ew {

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

// The members of UnaryDef<OP> (math/elementwise_math.h) and of a per-row
// kernel's row struct: the row's forward (value) and backward (grad: g and
// the saved input x or output y) expressions, with the parameters p and q
// (the row's defaults p0, q0 unless tc_<name> passes them), the dtypes it
// takes, whether it gives a bool tensor and has a gradient and what the
// backward saves. The arguments are those of a unary_ops.def row less name,
// GradName and domain.
#define TC_EW_UNARY_BIND_none(s) (void)s;
#define TC_EW_UNARY_BIND_input(s) const C x = s;
#define TC_EW_UNARY_BIND_output(s) const C y = s;
#define TC_EW_UNARY_DEF_BODY(dtypes_, bool_result_, diff_, save_, p0_, q0_, forward, backward) \
  static constexpr ::tc::ew::UnaryDtypes dtypes = ::tc::ew::UnaryDtypes(dtypes_);              \
  static constexpr bool ints = dtypes_ != 0;   /* computes integer dtypes */                   \
  static constexpr bool floats = dtypes_ != 2; /* computes floating dtypes */                  \
  static constexpr bool bools = dtypes_ >= 2;  /* takes bool tensors */                        \
  static constexpr bool bool_result = bool_result_;                                            \
  static constexpr bool differentiable = diff_;                                                \
  static constexpr ::tc::ew::Save save = ::tc::ew::Save::save_;                                \
  static constexpr double p0 = p0_, q0 = q0_;                                                  \
  template <typename C>                                                                        \
  static constexpr bool computes = std::is_same_v<C, bool>         ? bools                     \
                                   : ::tc::ew::is_float_compute<C> ? floats                    \
                                                                   : ints;                     \
  template <typename C>                                                                        \
  static TC_HD TC_EW_HOST_INLINE C value(C x, C p, C q) {                                      \
    (void)p;                                                                                   \
    (void)q;                                                                                   \
    if constexpr (computes<C>) {                                                               \
      return C(forward);                                                                       \
    } else {                                                                                   \
      return x; /* unreachable: the op rejects (or promotes) these dtypes */                   \
    }                                                                                          \
  }                                                                                            \
  template <typename C>                                                                        \
  static TC_HD TC_EW_HOST_INLINE C grad(C g, C saved, C p, C q) {                              \
    (void)p;                                                                                   \
    (void)q;                                                                                   \
    (void)g;                                                                                   \
    if constexpr (::tc::ew::is_float_compute<C>) {                                             \
      TC_EW_UNARY_BIND_##save_(saved) return C(backward);                                      \
    } else {                                                                                   \
      (void)saved;                                                                             \
      return C(0); /* gradients are floating */                                                \
    }                                                                                          \
  }

// A unary row's backward with its default parameters, or those the forward
// was called with (GradParams::unary_params). D: a struct of
// TC_EW_UNARY_DEF_BODY.
template <typename D, typename C>
TC_HD inline TC_EW_HOST_INLINE C unary_grad2_value(C g, C x, const GradParams& p) {
  return D::template grad<C>(g, x, C(p.unary_params ? p.up : D::p0), C(p.unary_params ? p.uq : D::q0));
}

// The member of BinaryDef<OP>: the arithmetic row's forward expression in x, y.
#define TC_EW_BINARY_DEF_BODY(forward) \
  template <typename C>                \
  static TC_HD C value(C x, C y) {     \
    return forward;                    \
  }

// The member of Grad3Def<F>: one input's gradient, a double expression in g, x, y.
#define TC_EW_GRAD3_BODY(grad)                              \
  static TC_HD double value(double g, double x, double y) { \
    (void)g; /* rows with a zero gradient (floor_divide) */ \
    (void)x;                                                \
    (void)y;                                                \
    return grad;                                            \
  }

// What a binary row takes: its dtypes column (binary_ops.def; ops.toml's
// dtypes). Here, not in math/binary_rows.h, so that a per-row kernel can ask
// about its own row without the tables over every row.
enum class BinaryDtypes : int32_t {
  floating = 0,       // integer and bool operands promote to the default float dtype (div, atan2)
  numeric = 1,        // float and integer dtypes
  numeric_bool = 2,   // also bool (maximum, minimum)
  integral = 3,       // integer dtypes and bool (bitwise_and, ...)
  integer = 4,        // integer dtypes only (the shifts)
  floating_only = 5,  // float dtypes; integer operands are refused (hypot, logaddexp)
  any = 6,            // the comparisons
};
constexpr bool binary_dtypes_take_bool(BinaryDtypes d) {
  return d == BinaryDtypes::numeric_bool || d == BinaryDtypes::integral || d == BinaryDtypes::any;
}
// Whether a row of dtypes d computes operands of a floating, bool or integer
// dtype as they are (floating rows compute integers only after promoting
// them).
constexpr bool binary_dtypes_compute(BinaryDtypes d, bool floating, bool is_bool) {
  switch (d) {
    case BinaryDtypes::floating:
    case BinaryDtypes::floating_only:
      return floating;
    case BinaryDtypes::numeric:
      return !is_bool;
    case BinaryDtypes::numeric_bool:
    case BinaryDtypes::any:
      return true;
    case BinaryDtypes::integral:
      return !floating;
    case BinaryDtypes::integer:
      return !floating && !is_bool;
  }
  return false;
}

// The two-operand formulas that are not rows: d(x ^ s)/dx, d(s / x)/dx, and
// clamp's (g where lo <= x <= hi, NaN bound = none). C: float (float32,
// float16, bfloat16) or double. The mixed float/double arithmetic is the
// CPU's as it always was (its lambdas took the scalar as a double).
template <typename C>
TC_HD inline TC_EW_HOST_INLINE C pow_scalar_grad2_value(C g, C x, const GradParams& p) {
  return p.s == 0 ? C(0) : C(double(g) * p.s * ::pow(double(x), p.s - 1));
}
template <typename C>
TC_HD inline TC_EW_HOST_INLINE C rdiv_scalar_grad2_value(C g, C x, const GradParams& p) {
  return C(double(-g) * p.s / double(x * x));
}
template <typename C>
TC_HD inline TC_EW_HOST_INLINE C clamp_grad2_value(C g, C x, const GradParams& p) {
  const bool inside = (!p.has_lo || double(x) >= p.lo) && (!p.has_hi || double(x) <= p.hi);
  return inside ? g : C(0);
}

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

}  // namespace tc::ew
