// The per-element compute types and scalar math the elementwise rows are
// written in, shared by the CPU kernels and the CUDA kernels: storage and
// compute types (float16 and bfloat16 elements are loaded into float,
// computed in float and rounded to nearest even when stored; every other
// dtype computes in its own type), the m_* wrappers of libm for float,
// double and device code, and integer helpers (integer arithmetic wraps, as
// in PyTorch, done in the unsigned type). Nothing here depends on the rows of
// ops/ops.toml (math/elementwise_math.h has those), so the kernels that only
// need the types do not rebuild when a row is added. Everything is TC_HD.
#pragma once
#include <math.h>

#include <cstdint>
#include <type_traits>

#include "core/dtype.h"
#include "math/fast_math.h"
#include "math/hd.h"
#include "math/wrapping.h"

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

// A value of compute type C converted for storage as D, as src/core/copy.cpp's
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

// float e^x and tanh on the host: math/fast_math.h's vectorizable formulas
// (libm's are calls, which keep the elementwise loops scalar); device code
// keeps CUDA's. Always inlined into the loops for the same reason.
#if defined(__CUDACC__)
#define TC_EW_FAST_INLINE TC_HD __forceinline__
#else
#define TC_EW_FAST_INLINE inline __attribute__((always_inline))
#endif
TC_EW_FAST_INLINE float m_exp(float x) {
#ifdef __CUDA_ARCH__
  return ::expf(x);
#else
  return fast::exp(x);
#endif
}
TC_HD inline double m_exp(double x) { return ::exp(x); }
TC_HD inline float m_log(float x) { return ::logf(x); }
TC_HD inline double m_log(double x) { return ::log(x); }
TC_HD inline float m_sqrt(float x) { return ::sqrtf(x); }
TC_HD inline double m_sqrt(double x) { return ::sqrt(x); }
TC_EW_FAST_INLINE float m_tanh(float x) {
#ifdef __CUDA_ARCH__
  return ::tanhf(x);
#else
  return fast::tanh(x);
#endif
}
#undef TC_EW_FAST_INLINE
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

// ---- wrapping integer arithmetic: src/math/wrapping.h, shared with the CPU ----

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
