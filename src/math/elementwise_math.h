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
#define TC_EW_MATH1(name, cname)                                 \
  TC_HD inline float m_##name(float x) { return ::cname##f(x); } \
  TC_HD inline double m_##name(double x) { return ::cname(x); }
TC_EW_MATH1(sin, sin)
TC_EW_MATH1(cos, cos)
TC_EW_MATH1(tan, tan)
TC_EW_MATH1(asin, asin)
TC_EW_MATH1(acos, acos)
TC_EW_MATH1(atan, atan)
TC_EW_MATH1(sinh, sinh)
TC_EW_MATH1(cosh, cosh)
TC_EW_MATH1(asinh, asinh)
TC_EW_MATH1(acosh, acosh)
TC_EW_MATH1(atanh, atanh)
TC_EW_MATH1(expm1, expm1)
TC_EW_MATH1(log2, log2)
TC_EW_MATH1(log10, log10)
TC_EW_MATH1(exp2, exp2)
TC_EW_MATH1(floor, floor)
TC_EW_MATH1(ceil, ceil)
TC_EW_MATH1(trunc, trunc)
TC_EW_MATH1(nearbyint, nearbyint)  // round half to even, as torch.round
TC_EW_MATH1(erfc, erfc)
TC_EW_MATH1(fabs, fabs)
#undef TC_EW_MATH1

// The inverse error function. CUDA has it; the C library does not: a
// rational first guess (M. Giles, "Approximating the erfinv function") refined
// by two Newton steps on erf, which reach double precision.
template <typename C>
TC_HD inline C erfinv_host(C y) {
  if (!(y > C(-1) && y < C(1))) {
    if (y == C(1)) return C(1) / C(0);
    if (y == C(-1)) return C(-1) / C(0);
    return (y - y) / (y - y);  // NaN: |y| > 1 or NaN
  }
  const double yd = double(y);
  double w = -::log((1.0 - yd) * (1.0 + yd)), x;
  if (w < 6.25) {
    w -= 3.125;
    double p = -3.6444120640178196996e-21;
    p = -1.685059138182016589e-19 + p * w;
    p = 1.2858480715256400167e-18 + p * w;
    p = 1.115787767802518096e-17 + p * w;
    p = -1.333171662854620906e-16 + p * w;
    p = 2.0972767875968561637e-17 + p * w;
    p = 6.6376381343583238325e-15 + p * w;
    p = -4.0545662729752068639e-14 + p * w;
    p = -8.1519341976054721522e-14 + p * w;
    p = 2.6335093153082322977e-12 + p * w;
    p = -1.2975133253453532498e-11 + p * w;
    p = -5.4154120542946279317e-11 + p * w;
    p = 1.051212273321532285e-09 + p * w;
    p = -4.1126339803469836976e-09 + p * w;
    p = -2.9070369957882005086e-08 + p * w;
    p = 4.2347877827932403518e-07 + p * w;
    p = -1.3654692000834678645e-06 + p * w;
    p = -1.3882523362786468719e-05 + p * w;
    p = 0.0001867342080340571352 + p * w;
    p = -0.00074070253416626697512 + p * w;
    p = -0.0060336708714301490533 + p * w;
    p = 0.24015818242558961693 + p * w;
    p = 1.6536545626831027356 + p * w;
    x = p * yd;
  } else if (w < 16.0) {
    w = ::sqrt(w) - 3.25;
    double p = 2.2137376921775787049e-09;
    p = 9.0756561938885390979e-08 + p * w;
    p = -2.7517406297064545428e-07 + p * w;
    p = 1.8239629214389227755e-08 + p * w;
    p = 1.5027403968909827627e-06 + p * w;
    p = -4.013867526981545969e-06 + p * w;
    p = 2.9234449089955446044e-06 + p * w;
    p = 1.2475304481671778723e-05 + p * w;
    p = -4.7318229009055733981e-05 + p * w;
    p = 6.8284851459573175448e-05 + p * w;
    p = 2.4031110387097893999e-05 + p * w;
    p = -0.0003550375203628474796 + p * w;
    p = 0.00095328937973738049703 + p * w;
    p = -0.0016882755560235047313 + p * w;
    p = 0.0024914420961078508066 + p * w;
    p = -0.0037512085075692412107 + p * w;
    p = 0.005370914553590063617 + p * w;
    p = 1.0052589676941592334 + p * w;
    p = 3.0838856104922207635 + p * w;
    x = p * yd;
  } else {
    w = ::sqrt(w) - 5.0;
    double p = -2.7109920616438573243e-11;
    p = -2.5556418169965252055e-10 + p * w;
    p = 1.5076572693500548083e-09 + p * w;
    p = -3.7894654401267369937e-09 + p * w;
    p = 7.6157012080783393804e-09 + p * w;
    p = -1.4960026627149240478e-08 + p * w;
    p = 2.9147953450901080826e-08 + p * w;
    p = -6.7711997758452339498e-08 + p * w;
    p = 2.2900482228026654717e-07 + p * w;
    p = -9.9298272942317002539e-07 + p * w;
    p = 4.5260625972231537039e-06 + p * w;
    p = -1.9681778105531670567e-05 + p * w;
    p = 7.5995277030017761139e-05 + p * w;
    p = -0.00021503011930044477347 + p * w;
    p = -0.00013871931833623122026 + p * w;
    p = 1.0103004648645343977 + p * w;
    p = 4.8499064014085844221 + p * w;
    x = p * yd;
  }
  for (int i = 0; i < 2; ++i) {  // Newton on erf(x) = y
    const double err = ::erf(x) - yd;
    x -= err / (1.1283791670955126 * ::exp(-x * x));
  }
  return C(x);
}
TC_HD inline float m_erfinv(float x) {
#ifdef __CUDA_ARCH__
  return ::erfinvf(x);
#else
  return erfinv_host(x);
#endif
}
TC_HD inline double m_erfinv(double x) {
#ifdef __CUDA_ARCH__
  return ::erfinv(x);
#else
  return erfinv_host(x);
#endif
}

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

// ---- helpers of the unary rows that also take integer (and bool) dtypes ----

// The sign: -1, 0 or 1 (0 for NaN, as torch.sign; bool: itself).
template <typename C>
TC_HD inline C sign_value(C x) {
  if constexpr (std::is_same_v<C, bool>) {
    return x;
  } else if constexpr (is_float_compute<C>) {
    return x > C(0) ? C(1) : x < C(0) ? C(-1) : C(0);
  } else {
    return C(C(0) < x) - C(is_negative(x) ? 1 : 0);
  }
}
// floor, ceil, round (half to even), trunc: integers are their own.
#define TC_EW_INT_IDENTITY(name, fn)     \
  template <typename C>                  \
  TC_HD inline C name(C x) {             \
    if constexpr (is_float_compute<C>) { \
      return fn(x);                      \
    } else {                             \
      return x;                          \
    }                                    \
  }
TC_EW_INT_IDENTITY(floor_value, m_floor)
TC_EW_INT_IDENTITY(ceil_value, m_ceil)
TC_EW_INT_IDENTITY(round_value, m_nearbyint)
TC_EW_INT_IDENTITY(trunc_value, m_trunc)
#undef TC_EW_INT_IDENTITY
// ~x for integers, !x for bool (floating dtypes never get here: the op is integral).
template <typename C>
TC_HD inline C bitwise_not_value(C x) {
  if constexpr (std::is_same_v<C, bool>) {
    return !x;
  } else if constexpr (std::is_integral_v<C>) {
    return C(~x);
  } else {
    return x;
  }
}
template <typename C>
TC_HD inline bool is_inf(C v) {
  if constexpr (is_float_compute<C>) {
    return v == C(1) / C(0) || v == C(-1) / C(0);
  } else {
    (void)v;
    return false;
  }
}

// ---- helpers of the activation rows (floating only) ----

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSqrt2OverPi = 0.79788456080286535587989211986876;  // gelu's tanh form
constexpr double kGeluKappa = 0.044715;

template <typename C>
TC_HD inline C sigmoid_value(C x) {
  return C(1) / (C(1) + m_exp(-x));
}
// log(sigmoid(x)) without overflow: min(x, 0) - log1p(e^-|x|).
template <typename C>
TC_HD inline C log_sigmoid_value(C x) {
  return (x < C(0) ? x : C(0)) - m_log1p(m_exp(-m_fabs(x)));
}
template <typename C>
TC_HD inline C mish_grad(C g, C x) {
  const C t = m_tanh(m_log1p(m_exp(x)));
  const C s = sigmoid_value(x);
  return g * (t + x * s * (C(1) - t * t));
}
template <typename C>
TC_HD inline C gelu_tanh_value(C x) {
  return C(0.5) * x * (C(1) + m_tanh(C(kSqrt2OverPi) * (x + C(kGeluKappa) * x * x * x)));
}
// PyTorch's GeluBackward for approximate = "tanh".
template <typename C>
TC_HD inline C gelu_tanh_grad(C g, C x) {
  const C t = m_tanh(C(kSqrt2OverPi) * (x + C(kGeluKappa) * x * x * x));
  const C left = C(0.5) * x, right = C(1) + t;
  const C dright = left * (C(1) - t * t) * C(kSqrt2OverPi) * (C(1) + C(3 * kGeluKappa) * x * x);
  return g * (C(0.5) * right + dright);
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

}  // namespace tc::ew
#include "math/binary_ext_math.h"  // the helpers of the issue-12 binary rows
#include "math/gelu_math.h"        // the gelu row's vectorizable float erf
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
// Where tests sample an op's input (unary_ops.def's domain column).
enum class Domain : int32_t { all, positive, unit, above_one };

// The UnaryOps (unary_ops.def: one row each). UnaryDef<OP>: the row's
// forward (value) and backward (grad: g and the saved input x or output y)
// expressions, with the parameters p and q (the row's defaults p0, q0 unless
// tc_<name> passes them), the dtypes it takes, whether it gives a bool tensor
// and has a gradient, what the backward saves and the domain tests sample.
template <UnaryOp OP>
struct UnaryDef;
#define TC_UNARY_BIND_none(s) (void)s;
#define TC_UNARY_BIND_input(s) const C x = s;
#define TC_UNARY_BIND_output(s) const C y = s;
#define TC_UNARY_DOMAIN_all Domain::all
#define TC_UNARY_DOMAIN_positive Domain::positive
#define TC_UNARY_DOMAIN_unit Domain::unit
#define TC_UNARY_DOMAIN_above_one Domain::above_one
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
    static constexpr Domain domain = TC_UNARY_DOMAIN_##domain_;                                      \
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
#undef TC_UNARY_DOMAIN_all
#undef TC_UNARY_DOMAIN_positive
#undef TC_UNARY_DOMAIN_unit
#undef TC_UNARY_DOMAIN_above_one

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
  Domain domain;
  double p0, q0;
};
constexpr UnaryInfo unary_info(UnaryOp op) {
  switch (op) {
#define TC_UNARY_OP(name, ...)                                                        \
  case UnaryOp::name: {                                                               \
    using D = UnaryDef<UnaryOp::name>;                                                \
    return UnaryInfo{D::dtypes,         D::ints, D::floats, D::bools, D::bool_result, \
                     D::differentiable, D::save, D::domain, D::p0,    D::q0};         \
  }
#include "math/unary_ops.def"
    case UnaryOp::count_:
      break;
  }
  return UnaryInfo{UnaryDtypes::any, false, false, false, false, false, Save::none, Domain::all, 0, 0};
}
constexpr bool unary_ints(UnaryOp op) { return unary_info(op).ints; }
constexpr Save unary_save(UnaryOp op) { return unary_info(op).save; }
constexpr bool unary_positive_domain(UnaryOp op) { return unary_info(op).domain == Domain::positive; }
constexpr Domain unary_domain(UnaryOp op) { return unary_info(op).domain; }
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

// The scalar arguments of a two-operand formula.
struct GradParams {
  double s = 0;  // pow_scalar, rdiv_scalar
  double lo = 0, hi = 0;
  bool has_lo = false, has_hi = false;  // clamp
  // A UnaryOp's parameters p and q; the row's defaults unless unary_params.
  bool unary_params = false;
  double up = 0, uq = 0;
};

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
