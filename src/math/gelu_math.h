// The exact (erf) GELU and its gradient, the formulas of the gelu row
// (ops/ops.toml). libm's erff/expf are scalar calls that keep the CPU's
// elementwise loop from vectorizing, and in a GPT training step they cost
// more than a layer's GEMMs; so on the host, float computes with plain float
// arithmetic the compiler vectorizes: erfc from Numerical Recipes' Chebyshev
// fit (fractional error below 1.2e-7 for every z >= 0) and e^x from Cephes'
// expf polynomial, with x^2 split so that the tails keep their relative
// accuracy (PyTorch's 1 + erf loses it below x = -3). Each element's value depends on nothing else and no
// multiply-add is contracted (the kernel files are built with
// -ffp-contract=off), so every CPU kernel set gives the same bits. double and
// the CUDA kernels keep libm's erf/exp (m_erf, m_exp). Included by
// math/elementwise_math.h.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "math/hd.h"

namespace tc::ew {

// 1 / sqrt(2) and 1 / sqrt(2 pi), as elementwise_math.h's kInvSqrt2 and kInvSqrt2Pi.
constexpr double kGeluInvSqrt2 = 0.70710678118654752440;
constexpr double kGeluInvSqrt2Pi = 0.39894228040143267794;

#ifndef __CUDA_ARCH__
namespace gelu_detail {

// Always inlined: a call left in the elementwise loop stops its vectorization
// (the backward uses two exponentials and passes GCC's inlining budget).
#define TC_GELU_INLINE inline __attribute__((always_inline))

// e^(a + b) for a + b <= 88 within 2 ulp, 0 below -87.3, NaN for NaN: Cephes'
// expf polynomial on r = a + b - n ln2, scaled by 2^n through the exponent
// bits. n is rounded by the 1.5 * 2^23 trick (no floorf call). a - n * ln2_hi
// is exact when a has at most 24 significant bits above 2^-18 (the callers'
// a = -x_hi^2 / 2), so the large part of the argument loses nothing to
// rounding; b is the small rest. Under- and overflowing arguments are clamped
// first, so that the int conversion is always defined.
TC_GELU_INLINE float exp_split(float a, float b) {
  const float s = a + b;
  const bool under = !(s >= -87.3f);  // NaN too (fixed below)
  const bool over = s > 88.7f;
  const float ac = under ? -87.3f : (over ? 88.7f : a), bc = (under | over) ? 0.0f : b;
  const float magic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float n = ((ac + bc) * 1.44269504088896341f + magic) - magic;
  float r = (ac - n * 0.693359375f) + bc;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e = p * r * r + r + 1.0f;
  // 2^n in two halves, so that n = 128 does not overflow the exponent.
  const int32_t ni = int32_t(n);
  const int32_t n1 = ni >> 1, n2 = ni - n1;
  const int32_t b1 = (n1 + 127) << 23, b2 = (n2 + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &b1, sizeof s1);
  std::memcpy(&s2, &b2, sizeof s2);
  return s != s ? s : (under ? 0.0f : e * s1 * s2);
}

// -x^2 / 2 as hi + lo, hi exact with at most 24 significant bits: x's top 12
// bits squared. Computing -x * x / 2 in one rounding would lose up to 2^-24 *
// x^2 / 2 of e^(-x^2/2)'s argument: 2e-6 relative at x = 6.
struct HalfSquare {
  float hi, lo;
};
TC_GELU_INLINE HalfSquare neg_half_square(float x) {
  // Beyond 2^16 e^(-x^2/2) is 0 anyway; clamping keeps x^2 finite (an
  // infinite hi with lo = 0 * inf would give NaN). NaN becomes 2^16 too: the
  // callers' other factor carries it. The clamp compares the bits of |x|
  // (they order as the values, NaN above all): a float select here kept GCC
  // from vectorizing the backward.
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits &= 0x7fffffffu;                             // |x| (-0 too)
  bits = bits < 0x47800000u ? bits : 0x47800000u;  // 65536.0f
  float ax;
  std::memcpy(&ax, &bits, sizeof ax);
  bits &= 0xfffff000u;
  float xh;
  std::memcpy(&xh, &bits, sizeof xh);
  return {-0.5f * (xh * xh), -0.5f * ((ax - xh) * (ax + xh))};
}

// Phi(-|x|) = erfc(|x| / sqrt 2) / 2, accurate in relative terms: erfc(z) =
// t * e^(-z^2 + P(t)), t = 1 / (1 + z / 2) (Numerical Recipes' erfcc, whose
// fraction error is below 1.2e-7 for every z >= 0), with z^2 = x^2 / 2 split.
TC_GELU_INLINE float lower_tail(float ax, const HalfSquare& h) {
  const float z = ax * float(kGeluInvSqrt2);
  const float t = 1.0f / (1.0f + 0.5f * z);
  float p = 0.17087277f;
  p = p * t + -0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t + -1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t + -0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t + -1.26551223f;
  return 0.5f * t * exp_split(h.hi, h.lo + p);
}

// Phi(x) = P(N(0,1) <= x), accurate in relative terms on both sides.
TC_GELU_INLINE float normal_cdf(float x, const HalfSquare& h) {
  const float tail = lower_tail(x < 0.0f ? -x : x, h);
  return x < 0.0f ? tail : 1.0f - tail;
}

#undef TC_GELU_INLINE

}  // namespace gelu_detail
#endif

// The row's formulas are always inlined into the elementwise loops: an
// out-of-line copy would be one function for every CPU kernel set (the
// linker keeps the baseline's, CMakeLists.txt), which is scalar code.
#if defined(__CUDACC__)
#define TC_GELU_HD TC_HD __forceinline__
#else
#define TC_GELU_HD inline __attribute__((always_inline))
#endif

// x * Phi(x).
template <typename C>
TC_GELU_HD C gelu_erf_value(C x) {
#ifndef __CUDA_ARCH__
  if constexpr (std::is_same_v<C, float>) {
    const auto h = gelu_detail::neg_half_square(x);
    return x * gelu_detail::normal_cdf(x, h);
  }
#endif
  return C(0.5) * x * (C(1) + m_erf(x * C(kGeluInvSqrt2)));
}

// PyTorch's GeluBackward for approximate = "none": g * (Phi(x) + x * phi(x)).
template <typename C>
TC_GELU_HD C gelu_erf_grad(C g, C x) {
#ifndef __CUDA_ARCH__
  if constexpr (std::is_same_v<C, float>) {
    const auto h = gelu_detail::neg_half_square(x);
    const float pdf = float(kGeluInvSqrt2Pi) * gelu_detail::exp_split(h.hi, h.lo);
    return g * (gelu_detail::normal_cdf(x, h) + x * pdf);
  }
#endif
  return g *
         (C(0.5) * (C(1) + m_erf(x * C(kGeluInvSqrt2))) + x * (C(kGeluInvSqrt2Pi) * m_exp(C(-0.5) * x * x)));
}

#undef TC_GELU_HD

}  // namespace tc::ew
