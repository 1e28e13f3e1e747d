// The per-element math of the elementwise ops, shared by the CUDA kernels
// (src/cuda/elementwise.cu) and the CPU: the backward formulas here are the
// ones the CPU's autograd runs (src/ops/elementwise.cpp), and the forward
// values replicate the CPU kernels' lambdas operation for operation, so the
// CPU tests (tests/gtest/test_cuda_math_host.cpp) check the very code the GPU
// runs against the CPU ops. Everything is TC_HD (cuda/hd.h).
//
// Storage and compute types: float16 and bfloat16 elements are loaded into
// float, computed in float and rounded to nearest even when stored (the CPU
// only converts them); every other dtype computes in its own type. Integer
// arithmetic wraps, as in PyTorch (done in the unsigned type: signed overflow
// is undefined behaviour).
#pragma once
#include <math.h>

#include <cstdint>
#include <type_traits>

#include "dtype.h"
#include "math/hd.h"
#include "math/wrapping.h"
#include "ops/ops.h"

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

namespace tc::ew {

// ---- storage <-> compute ----

template <typename T>
constexpr bool is_half_like = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <typename T>
constexpr bool is_float_compute = std::is_floating_point_v<T>;  // float or double

template <typename T>
struct Compute {
  using type = T;
};
template <>
struct Compute<Half> {
  using type = float;
};
template <>
struct Compute<BFloat16> {
  using type = float;
};
template <typename T>
using compute_t = typename Compute<T>::type;

TC_HD inline float half_to_float(uint16_t h) {
#ifdef __CUDA_ARCH__
  return __half2float(__ushort_as_half(h));
#else
  return Half::to_float(h);
#endif
}
TC_HD inline uint16_t float_to_half(float f) {
#ifdef __CUDA_ARCH__
  return __half_as_ushort(__float2half_rn(f));
#else
  return Half::from_float(f);
#endif
}
TC_HD inline float bf16_to_float(uint16_t b) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(uint32_t(b) << 16);
#else
  BFloat16 v;
  v.bits = b;
  return float(v);
#endif
}
TC_HD inline uint16_t float_to_bf16(float f) {
#ifdef __CUDA_ARCH__
  return __bfloat16_as_ushort(__float2bfloat16_rn(f));
#else
  return BFloat16::from_float(f);
#endif
}

// An element as its compute type. A bool is read through its byte, so that a
// byte other than 0 or 1 (borrowed data) reads as true, as the CPU's copies do.
template <typename T>
TC_HD inline compute_t<T> load(const T* p) {
  if constexpr (std::is_same_v<T, Half>) {
    return half_to_float(p->bits);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return bf16_to_float(p->bits);
  } else if constexpr (std::is_same_v<T, bool>) {
    return *reinterpret_cast<const unsigned char*>(p) != 0;
  } else {
    return *p;
  }
}
template <typename T>
TC_HD inline void store(T* p, compute_t<T> v) {
  if constexpr (std::is_same_v<T, Half>) {
    p->bits = float_to_half(v);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    p->bits = float_to_bf16(v);
  } else {
    *p = v;
  }
}

// std::numeric_limits is not usable in device code without relaxed constexpr.
template <typename T>
struct IntLimits;
template <>
struct IntLimits<int8_t> {
  static constexpr double lo = -128.0, hi = 127.0;
};
template <>
struct IntLimits<int16_t> {
  static constexpr double lo = -32768.0, hi = 32767.0;
};
template <>
struct IntLimits<int32_t> {
  static constexpr double lo = -2147483648.0, hi = 2147483647.0;
};
template <>
struct IntLimits<int64_t> {
  static constexpr double lo = -9223372036854775808.0, hi = 9223372036854775807.0;  // 2^63 as a double
};
template <>
struct IntLimits<uint8_t> {
  static constexpr double lo = 0.0, hi = 255.0;
};

// A value of compute type C converted for storage as D, as src/copy.cpp's
// convert does: bool is v != 0; 16-bit floats round from float; NaN and
// out-of-range floats going to integers give 0 (not UB); otherwise static_cast.
template <typename D, typename C>
TC_HD inline compute_t<D> convert(C v) {
  if constexpr (std::is_same_v<D, bool>) {
    return v != C(0);
  } else if constexpr (is_half_like<D>) {
    return static_cast<float>(v);
  } else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<C>) {
    const double x = double(v);
    // lo - 1.0 rounds to lo for int64 (-2^63 is exact, -2^63 - 1 is not a
    // double): lo itself must pass.
    if (!((x > IntLimits<D>::lo - 1.0 || x == IntLimits<D>::lo) && x < IntLimits<D>::hi + 1.0)) return D(0);
    return static_cast<D>(x);
  } else {
    return static_cast<D>(v);
  }
}

// ---- math functions: the C library's, by overload (CUDA's in device code) ----

TC_HD inline float m_exp(float x) { return ::expf(x); }
TC_HD inline double m_exp(double x) { return ::exp(x); }
TC_HD inline float m_log(float x) { return ::logf(x); }
TC_HD inline double m_log(double x) { return ::log(x); }
TC_HD inline float m_sqrt(float x) { return ::sqrtf(x); }
TC_HD inline double m_sqrt(double x) { return ::sqrt(x); }
TC_HD inline float m_tanh(float x) { return ::tanhf(x); }
TC_HD inline double m_tanh(double x) { return ::tanh(x); }
TC_HD inline float m_log1p(float x) { return ::log1pf(x); }
TC_HD inline double m_log1p(double x) { return ::log1p(x); }
TC_HD inline float m_erf(float x) { return ::erff(x); }
TC_HD inline double m_erf(double x) { return ::erf(x); }
TC_HD inline float m_pow(float x, float y) { return ::powf(x, y); }
TC_HD inline double m_pow(double x, double y) { return ::pow(x, y); }

// x < 0, without a comparison of an unsigned value with 0 (nvcc warns).
template <typename C>
TC_HD inline bool is_negative(C x) {
  if constexpr (std::is_unsigned_v<C>) {
    (void)x;
    return false;
  } else {
    return x < C(0);
  }
}

template <typename C>
TC_HD inline bool is_nan(C v) {
  if constexpr (is_float_compute<C>) {
    return v != v;
  } else {
    (void)v;
    return false;
  }
}

// ---- wrapping integer arithmetic: src/wrapping.h, shared with the CPU ----

using ::tc::wrapping_add;
using ::tc::wrapping_mul;
using ::tc::wrapping_neg;
using ::tc::wrapping_sub;

// Integer pow like PyTorch's: a negative exponent leaves only +-1; overflow wraps.
template <typename T>
TC_HD inline T int_pow(T base, T exp) {
  if constexpr (std::is_same_v<T, bool>) {
    return exp ? base : true;
  } else {
    if constexpr (std::is_signed_v<T>) {
      if (exp < 0) {
        if (base == 1) return 1;
        if (base == T(-1)) return (exp % 2) ? T(-1) : T(1);
        return 0;
      }
    }
    T r = 1;
    while (exp) {
      if (exp & 1) r = wrapping_mul(r, base);
      base = wrapping_mul(base, base);
      exp >>= 1;
    }
    return r;
  }
}

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
#define TC_BINARY_OP(name, GradName, saves, a_is_g, b_is_g, forward, grad_a, grad_b) \
  template <>                                                                        \
  struct BinaryDef<BinaryOp::name> {                                                 \
    template <typename C>                                                            \
    static TC_HD C value(C x, C y) {                                                 \
      return forward;                                                                \
    }                                                                                \
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

// The UnaryOps (unary_ops.def: one row each). UnaryDef<OP>: the row's
// forward (value) and backward (grad: g and the saved input x or output y)
// expressions, whether integer dtypes are allowed, what the backward saves,
// and the domain tests sample (positive: x > 0).
template <UnaryOp OP>
struct UnaryDef;
#define TC_UNARY_BIND_none(s) (void)s;
#define TC_UNARY_BIND_input(s) const C x = s;
#define TC_UNARY_BIND_output(s) const C y = s;
#define TC_UNARY_OP(name, GradName, ints_, save_, domain_, forward, backward) \
  template <>                                                                 \
  struct UnaryDef<UnaryOp::name> {                                            \
    static constexpr bool ints = ints_;                                       \
    static constexpr Save save = Save::save_;                                 \
    static constexpr bool positive_domain = #domain_[0] == 'p';               \
    template <typename C>                                                     \
    static TC_HD C value(C x) {                                               \
      if constexpr (ints_ || is_float_compute<C>) {                           \
        return forward;                                                       \
      } else {                                                                \
        return x; /* unreachable: the op rejects integer tensors */           \
      }                                                                       \
    }                                                                         \
    template <typename C>                                                     \
    static TC_HD C grad(C g, C saved) {                                       \
      TC_UNARY_BIND_##save_(saved) return backward;                           \
    }                                                                         \
  };
#include "math/unary_ops.def"
#undef TC_UNARY_BIND_none
#undef TC_UNARY_BIND_input
#undef TC_UNARY_BIND_output

template <UnaryOp OP, typename C>
TC_HD inline C unary_value(C x) {
  return UnaryDef<OP>::template value<C>(x);
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
// The row's flags at run time.
constexpr bool unary_ints(UnaryOp op) {
  switch (op) {
#define TC_UNARY_OP(name, ...) \
  case UnaryOp::name:          \
    return UnaryDef<UnaryOp::name>::ints;
#include "math/unary_ops.def"
    case UnaryOp::count_:
      break;
  }
  return false;
}
constexpr Save unary_save(UnaryOp op) {
  switch (op) {
#define TC_UNARY_OP(name, ...) \
  case UnaryOp::name:          \
    return UnaryDef<UnaryOp::name>::save;
#include "math/unary_ops.def"
    case UnaryOp::count_:
      break;
  }
  return Save::none;
}
constexpr bool unary_positive_domain(UnaryOp op) {
  switch (op) {
#define TC_UNARY_OP(name, ...) \
  case UnaryOp::name:          \
    return UnaryDef<UnaryOp::name>::positive_domain;
#include "math/unary_ops.def"
    case UnaryOp::count_:
      break;
  }
  return false;
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

// The scalar arguments of a two-operand formula.
struct GradParams {
  double s = 0;  // pow_scalar, rdiv_scalar
  double lo = 0, hi = 0;
  bool has_lo = false, has_hi = false;  // clamp
};

// One formula of three operands, chosen at compile time (the CPU's loops,
// which then vectorize) or at run time (the CUDA kernels: one per dtype).
template <Grad F>
struct Grad3Def;
#define TC_BINARY_OP(name, GradName, saves, a_is_g, b_is_g, forward, grad_a, grad_b) \
  template <>                                                                        \
  struct Grad3Def<Grad::name##_a> {                                                  \
    static TC_HD double value(double g, double x, double y) {                        \
      (void)x;                                                                       \
      (void)y;                                                                       \
      return grad_a;                                                                 \
    }                                                                                \
  };                                                                                 \
  template <>                                                                        \
  struct Grad3Def<Grad::name##_b> {                                                  \
    static TC_HD double value(double g, double x, double y) {                        \
      (void)x;                                                                       \
      (void)y;                                                                       \
      return grad_b;                                                                 \
    }                                                                                \
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
TC_HD inline C grad2_value(C g, C x, const GradParams& p) {
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
    return UnaryDef<op>::template grad<C>(g, x);
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
