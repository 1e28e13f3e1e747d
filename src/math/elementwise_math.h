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

// add sub mul div pow maximum minimum (the arithmetic BinaryOps). Division is
// only ever computed in a floating type (integer operands promote first).
template <BinaryOp OP, typename C>
TC_HD inline C binary_value(C x, C y) {
  if constexpr (OP == BinaryOp::add) {
    return wrapping_add(x, y);
  } else if constexpr (OP == BinaryOp::sub) {
    return wrapping_sub(x, y);
  } else if constexpr (OP == BinaryOp::mul) {
    return wrapping_mul(x, y);
  } else if constexpr (OP == BinaryOp::div) {
    if constexpr (is_float_compute<C>) {
      return C(x / y);
    } else {
      return C(0);  // unreachable: see above
    }
  } else if constexpr (OP == BinaryOp::pow) {
    if constexpr (is_float_compute<C>) {
      return m_pow(x, y);
    } else {
      return int_pow(x, y);
    }
  } else if constexpr (OP == BinaryOp::maximum) {  // NaN propagates, as in torch.maximum
    return is_nan(x) ? x : (is_nan(y) || y > x) ? y : x;
  } else {
    static_assert(OP == BinaryOp::minimum, "binary_value: not an arithmetic op");
    return is_nan(x) ? x : (is_nan(y) || y < x) ? y : x;
  }
}
// The same with the op chosen at run time (the integer kernels: one kernel per
// dtype instead of one per op and dtype).
template <typename C>
TC_HD inline C binary_value(BinaryOp op, C x, C y) {
  switch (op) {
    case BinaryOp::add:
      return binary_value<BinaryOp::add>(x, y);
    case BinaryOp::sub:
      return binary_value<BinaryOp::sub>(x, y);
    case BinaryOp::mul:
      return binary_value<BinaryOp::mul>(x, y);
    case BinaryOp::div:
      return binary_value<BinaryOp::div>(x, y);
    case BinaryOp::pow:
      return binary_value<BinaryOp::pow>(x, y);
    case BinaryOp::maximum:
      return binary_value<BinaryOp::maximum>(x, y);
    default:
      return binary_value<BinaryOp::minimum>(x, y);
  }
}

// eq ne lt le gt ge.
template <typename C>
TC_HD inline bool compare_value(BinaryOp op, C x, C y) {
  switch (op) {
    case BinaryOp::eq:
      return x == y;
    case BinaryOp::ne:
      return x != y;
    case BinaryOp::lt:
      return x < y;
    case BinaryOp::le:
      return x <= y;
    case BinaryOp::gt:
      return x > y;
    default:
      return x >= y;
  }
}

// pow by a scalar: the CPU's special cases, chosen once on the host.
enum class PowMode : int32_t { general, square, identity, sqrt };
inline PowMode pow_mode(double s) {
  return s == 2 ? PowMode::square : s == 1 ? PowMode::identity : s == 0.5 ? PowMode::sqrt : PowMode::general;
}

// x (op) s, s already converted to the compute type (as the CPU's T(s)).
template <ScalarOp OP, typename C>
TC_HD inline C scalar_value(C x, C s, PowMode mode) {
  if constexpr (OP == ScalarOp::add) {
    return C(x + s);
  } else if constexpr (OP == ScalarOp::sub) {
    return C(x - s);
  } else if constexpr (OP == ScalarOp::mul) {
    return C(x * s);
  } else if constexpr (OP == ScalarOp::div) {
    return C(x / s);
  } else if constexpr (OP == ScalarOp::rsub) {
    return C(s - x);
  } else if constexpr (OP == ScalarOp::rdiv) {
    return C(s / x);
  } else {
    static_assert(OP == ScalarOp::pow, "scalar_value: unknown op");
    switch (mode) {
      case PowMode::square:
        return wrapping_mul(x, x);
      case PowMode::identity:
        return x;
      case PowMode::sqrt:
        return m_sqrt(x);
      default:
        return m_pow(x, s);
    }
  }
}

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

// neg abs relu (every numeric type); exp log sqrt tanh sigmoid gelu (floating only).
template <UnaryOp OP, typename C>
TC_HD inline C unary_value(C x) {
  if constexpr (OP == UnaryOp::neg) {
    return wrapping_neg(x);
  } else if constexpr (OP == UnaryOp::abs) {
    return is_negative(x) ? wrapping_neg(x) : x;
  } else if constexpr (OP == UnaryOp::relu) {
    return is_negative(x) ? C(0) : x;
  } else if constexpr (!is_float_compute<C>) {
    return x;  // unreachable: the op rejects integer tensors
  } else if constexpr (OP == UnaryOp::exp) {
    return m_exp(x);
  } else if constexpr (OP == UnaryOp::log) {
    return m_log(x);
  } else if constexpr (OP == UnaryOp::sqrt) {
    return m_sqrt(x);
  } else if constexpr (OP == UnaryOp::tanh) {
    return m_tanh(x);
  } else if constexpr (OP == UnaryOp::sigmoid) {
    return C(1) / (C(1) + m_exp(-x));
  } else {
    static_assert(OP == UnaryOp::gelu, "unary_value: unknown op");
    return C(0.5) * x * (C(1) + m_erf(x * C(kInvSqrt2)));
  }
}
template <typename C>
TC_HD inline C unary_value(UnaryOp op, C x) {
  switch (op) {
    case UnaryOp::neg:
      return unary_value<UnaryOp::neg>(x);
    case UnaryOp::abs:
      return unary_value<UnaryOp::abs>(x);
    case UnaryOp::relu:
      return unary_value<UnaryOp::relu>(x);
    case UnaryOp::exp:
      return unary_value<UnaryOp::exp>(x);
    case UnaryOp::log:
      return unary_value<UnaryOp::log>(x);
    case UnaryOp::sqrt:
      return unary_value<UnaryOp::sqrt>(x);
    case UnaryOp::tanh:
      return unary_value<UnaryOp::tanh>(x);
    case UnaryOp::sigmoid:
      return unary_value<UnaryOp::sigmoid>(x);
    default:
      return unary_value<UnaryOp::gelu>(x);
  }
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
  // Three operands (g, x, y), computed in double whatever the dtype:
  div_b,      // d(x / y)/dy
  pow_a,      // d(x ^ y)/dx
  pow_b,      // d(x ^ y)/dy
  maximum_a,  // the larger input gets g, ties split it evenly
  maximum_b,
  minimum_a,
  minimum_b,
  // Two operands (g and the saved input x or output y), in the compute type:
  pow_scalar,   // d(x ^ s)/dx
  rdiv_scalar,  // d(s / x)/dx
  abs,          // x saved
  exp,          // y saved
  log,          // x saved
  sqrt,         // y saved
  tanh,         // y saved
  sigmoid,      // y saved
  relu,         // y saved
  gelu,         // x saved
  clamp,        // x saved; g where lo <= x <= hi (NaN bound = none)
};
constexpr bool is_grad3(Grad f) { return f <= Grad::minimum_b; }

// The scalar arguments of a two-operand formula.
struct GradParams {
  double s = 0;  // pow_scalar, rdiv_scalar
  double lo = 0, hi = 0;
  bool has_lo = false, has_hi = false;  // clamp
};

// One formula of three operands, chosen at compile time (the CPU's loops,
// which then vectorize) or at run time (the CUDA kernels: one per dtype).
template <Grad F>
TC_HD inline double grad3_value(double g, double x, double y) {
  if constexpr (F == Grad::div_b) {
    return -g * x / (y * y);
  } else if constexpr (F == Grad::pow_a) {
    return y == 0 ? 0.0 : g * y * ::pow(x, y - 1);
  } else if constexpr (F == Grad::pow_b) {
    return (x == 0 && y >= 0) ? 0.0 : g * ::pow(x, y) * ::log(x);
  } else if constexpr (F == Grad::maximum_a) {
    return x == y ? g / 2 : (x - y > 0 ? g : 0.0);
  } else if constexpr (F == Grad::maximum_b) {
    return x == y ? g / 2 : (y - x > 0 ? g : 0.0);
  } else if constexpr (F == Grad::minimum_a) {
    return x == y ? g / 2 : (-(x - y) > 0 ? g : 0.0);
  } else {
    static_assert(F == Grad::minimum_b, "grad3_value: not a three-operand formula");
    return x == y ? g / 2 : (-(y - x) > 0 ? g : 0.0);
  }
}
TC_HD inline double grad3_value(Grad f, double g, double x, double y) {
  switch (f) {
    case Grad::div_b:
      return grad3_value<Grad::div_b>(g, x, y);
    case Grad::pow_a:
      return grad3_value<Grad::pow_a>(g, x, y);
    case Grad::pow_b:
      return grad3_value<Grad::pow_b>(g, x, y);
    case Grad::maximum_a:
      return grad3_value<Grad::maximum_a>(g, x, y);
    case Grad::maximum_b:
      return grad3_value<Grad::maximum_b>(g, x, y);
    case Grad::minimum_a:
      return grad3_value<Grad::minimum_a>(g, x, y);
    case Grad::minimum_b:
      return grad3_value<Grad::minimum_b>(g, x, y);
    default:
      return 0.0;  // not a three-operand formula
  }
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
  } else if constexpr (F == Grad::abs) {
    return x > 0 ? g : x < 0 ? C(-g) : C(0);
  } else if constexpr (F == Grad::exp) {
    return g * x;
  } else if constexpr (F == Grad::log) {
    return g / x;
  } else if constexpr (F == Grad::sqrt) {
    return g / (C(2) * x);
  } else if constexpr (F == Grad::tanh) {
    return g * (C(1) - x * x);
  } else if constexpr (F == Grad::sigmoid) {
    return g * x * (C(1) - x);
  } else if constexpr (F == Grad::relu) {
    return x > 0 ? g : C(0);
  } else if constexpr (F == Grad::gelu) {
    const C cdf = C(0.5) * (C(1) + m_erf(x * C(kInvSqrt2)));
    const C pdf = C(kInvSqrt2Pi) * m_exp(C(-0.5) * x * x);
    return g * (cdf + x * pdf);
  } else {
    static_assert(F == Grad::clamp, "grad2_value: not a two-operand formula");
    const bool inside = (!p.has_lo || double(x) >= p.lo) && (!p.has_hi || double(x) <= p.hi);
    return inside ? g : C(0);
  }
}
template <typename C>
TC_HD inline C grad2_value(Grad f, C g, C x, const GradParams& p) {
  switch (f) {
    case Grad::pow_scalar:
      return grad2_value<Grad::pow_scalar>(g, x, p);
    case Grad::rdiv_scalar:
      return grad2_value<Grad::rdiv_scalar>(g, x, p);
    case Grad::abs:
      return grad2_value<Grad::abs>(g, x, p);
    case Grad::exp:
      return grad2_value<Grad::exp>(g, x, p);
    case Grad::log:
      return grad2_value<Grad::log>(g, x, p);
    case Grad::sqrt:
      return grad2_value<Grad::sqrt>(g, x, p);
    case Grad::tanh:
      return grad2_value<Grad::tanh>(g, x, p);
    case Grad::sigmoid:
      return grad2_value<Grad::sigmoid>(g, x, p);
    case Grad::relu:
      return grad2_value<Grad::relu>(g, x, p);
    case Grad::gelu:
      return grad2_value<Grad::gelu>(g, x, p);
    case Grad::clamp:
      return grad2_value<Grad::clamp>(g, x, p);
    default:
      return C(0);  // not a two-operand formula
  }
}

}  // namespace tc::ew
