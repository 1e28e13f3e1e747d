// Float e^x and tanh(x) the compiler vectorizes, for the CPU elementwise
// loops (math/compute_math.h's m_exp and m_tanh use them on the host).
// libm's expf and tanhf are calls: a loop that makes one runs one element at
// a time (glibc's tanhf costs about 13x the vectorized tanh below, and it was
// 9% of a GRU classifier's training step, docs/PERF_RNN.md). Here every function is straight-line float
// and integer arithmetic: Cephes' expf polynomial on x - n ln2 with 2^n built
// in the exponent bits, and tanh from an odd polynomial near 0 and from e^2|x|
// elsewhere, both computed and one selected. Accuracy (checked against
// double-precision libm on every 61st float, ctest on every 251st, and the
// edge cases by tests/fast_math/check_fast_math.cpp): e^x within 1 ulp, tanh within 2 ulp,
// and what libm gives at the edges: +-inf, NaN, e^x's overflow to inf above
// 88.72 and its gradual underflow to denormals and then 0 below -87.34.
//
// The kernel files are built with -ffp-contract=off, so every CPU kernel set
// (baseline, AVX2, AVX-512) computes the same bits from these formulas. Device
// code keeps CUDA's expf and tanhf: nothing here is compiled for it.
#pragma once

#ifndef __CUDA_ARCH__
#include <cstdint>
#include <cstring>

namespace tc::ew::fast {

// Always inlined: a call left in an elementwise loop keeps it scalar.
#define TC_FAST_INLINE inline __attribute__((always_inline))

TC_FAST_INLINE float from_bits(int32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
TC_FAST_INLINE int32_t to_bits(float f) {
  int32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// e^x. n = round(x / ln2) by the 1.5 * 2^23 trick (no rounding call), r = x -
// n ln2 in two steps (n * 0.693359375 is exact for |n| <= 2^15), e^r from
// Cephes' degree-7 polynomial on |r| <= ln2 / 2, times 2^n made as 2^(n/2) *
// 2^(n - n/2): each half is a normal float for every n in [-150, 128], and
// the last product rounds once, also into the denormals. x is clamped to
// [-104, 89] first, so that n converts to int defined (NaN too: it is put
// back at the end); e^-104 rounds to 0 and e^89 overflows to inf, as they
// should.
TC_FAST_INLINE float exp(float x) {
  // The clamp is made on the bits ordered as integers (NaN goes to an end):
  // with float selects GCC moved the arithmetic after them into branches (a
  // float operation may trap), and the loop stayed scalar.
  int32_t o = to_bits(x);
  o ^= (o >> 31) & 0x7fffffff;              // float order as int order
  const int32_t lo = int32_t(0xbd2fffffu);  // -104.0f (0xc2d00000), ordered
  const int32_t hi = 0x42b20000;            // 89.0f
  o = o < lo ? lo : o;
  o = o > hi ? hi : o;
  const float xc = from_bits(o ^ ((o >> 31) & 0x7fffffff));
  const float magic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float n = (xc * 1.44269504088896341f + magic) - magic;
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e = p * r * r + r + 1.0f;
  const int32_t ni = int32_t(n);
  const int32_t n1 = ni >> 1, n2 = ni - n1;
  const float y = e * from_bits((n1 + 127) << 23) * from_bits((n2 + 127) << 23);
  // NaN in, NaN out: chosen by a bit mask, as a float select of a product
  // (it may trap) made GCC compute the product in a branch.
  const int32_t keep = -int32_t(x == x);
  return from_bits((to_bits(y) & keep) | (to_bits(x) & ~keep));
}

// tanh(x) = sign(x) tanh|x|: below |x| = 0.625, |x| + |x|^3 P(x^2) (Cephes'
// tanhf polynomial, exact at 0 and the denormals); above, 1 - 2 / (e^2|x| +
// 1) (e^2|x| = inf gives 1, NaN stays NaN).
TC_FAST_INLINE float tanh(float x) {
  const int32_t sign = to_bits(x) & int32_t(0x80000000u);
  const float ax = from_bits(to_bits(x) & 0x7fffffff);
  const float z = ax * ax;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z + -5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z + -3.33332819422e-1f;
  const float near0 = ax + ax * (z * p);
  const float far = 1.0f - 2.0f / (exp(ax + ax) + 1.0f);
  // |tanh x| from either formula (a bit-mask select: see exp), then x's sign
  // (-0 stays -0).
  const int32_t use_near = -int32_t(ax < 0.625f);
  return from_bits(((to_bits(near0) & use_near) | (to_bits(far) & ~use_near)) | sign);
}

#undef TC_FAST_INLINE

}  // namespace tc::ew::fast
#endif
