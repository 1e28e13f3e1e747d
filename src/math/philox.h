// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC 2011) and the mapping from its outputs to uniform, normal and
// Bernoulli samples, shared by the CPU generator (src/cpu/random_optim.cpp) and the CUDA
// kernel (src/cuda/random.cu): both produce exactly the same numbers for the
// same (seed, counter), which the CPU tests check once for both.
//
// Bit-identical results need the same IEEE operations in the same order on
// both sides: nvcc would contract a * b + c into an FMA (one rounding fewer),
// so the double arithmetic goes through rn_* helpers that are the _rn
// intrinsics on the device (never contracted) and plain operators on the
// host, where the files using them (src/cpu/random_optim.cpp, optim_steps.cpp) are built
// with -ffp-contract=off (CMakeLists.txt).
#pragma once
#include <cmath>
#include <cstdint>

#include "math/hd.h"

namespace tc {

// The full Philox4x32-10 block function: 4 counter words, 2 key words.
TC_HD inline void philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t(0xD2511F53u) * c0;
    const uint64_t p1 = uint64_t(0xCD9E8D57u) * c2;
    const uint32_t n0 = uint32_t(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = uint32_t(p0 >> 32) ^ c3 ^ k1;
    c1 = uint32_t(p1);
    c3 = uint32_t(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;  // the key schedule (Weyl sequence)
    k1 += 0xBB67AE85u;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

// libtc's use: key = seed, counter = (counter, 0, 0).
TC_HD inline void philox4x32(uint64_t seed, uint64_t counter, uint32_t out[4]) {
  const uint32_t ctr[4] = {uint32_t(counter), uint32_t(counter >> 32), 0u, 0u};
  const uint32_t key[2] = {uint32_t(seed), uint32_t(seed >> 32)};
  philox4x32_10(ctr, key, out);
}

// Uniform in [0, 1) from 32 random bits (float) or 2x32 (double).
TC_HD inline float uint_to_unit_float(uint32_t x) { return float(x >> 8) * (1.0f / 16777216.0f); }
TC_HD inline double uint_to_unit_double(uint32_t hi, uint32_t lo) {
  return double((uint64_t(hi) << 21) ^ (uint64_t(lo) >> 11)) * (1.0 / 9007199254740992.0);
}

// IEEE double operations, rounded to nearest, never fused.
TC_HD inline double rn_add(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
TC_HD inline double rn_sub(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
TC_HD inline double rn_mul(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
TC_HD inline double rn_div(double a, double b) {
#ifdef __CUDA_ARCH__
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
TC_HD inline double rn_sqrt(double a) {
#ifdef __CUDA_ARCH__
  return __dsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}

enum class RandDist : int { uniform = 0, normal = 1, bernoulli = 2 };

// Philox call number `call` of a request starting at counter `offset`: fills
// v[0..per) (per = 4 for float, 2 for double) with samples of dist, where
// (a, b) = (low, high), (mean, std) or (keep, unused). Returns per. Value k of
// call c is element c * per + k of the request.
template <typename T>
TC_HD inline int philox_samples(uint64_t seed, uint64_t counter, RandDist dist, double a, double b, T v[4]) {
  constexpr bool is_float = sizeof(T) == 4;
  constexpr int per = is_float ? 4 : 2;
  uint32_t r[4];
  philox4x32(seed, counter, r);
  double u[4];
  if (is_float) {
    for (int k = 0; k < 4; ++k) u[k] = double(uint_to_unit_float(r[k]));
  } else {
    u[0] = uint_to_unit_double(r[0], r[1]);
    u[1] = uint_to_unit_double(r[2], r[3]);
  }
  if (dist == RandDist::normal) {
    // Box-Muller on pairs; 1 - u keeps the log away from 0. log, cos and sin
    // are the one place where the device's libm may differ from the host's
    // (by an ulp of the double, which rounding to float nearly always hides).
    constexpr double two_pi = 2.0 * 3.14159265358979323846;
    for (int k = 0; k < per; k += 2) {
      const double radius = rn_sqrt(rn_mul(-2.0, ::log(rn_sub(1.0, u[k]))));
      const double theta = rn_mul(two_pi, u[k + 1]);
      const double scaled = rn_mul(b, radius);
      v[k] = T(rn_add(a, rn_mul(scaled, ::cos(theta))));
      v[k + 1] = T(rn_add(a, rn_mul(scaled, ::sin(theta))));
    }
  } else if (dist == RandDist::uniform) {
    const double width = rn_sub(b, a);
    for (int k = 0; k < per; ++k) {
      const T x = T(rn_add(a, rn_mul(width, u[k])));
      v[k] = x < T(b) ? x : T(a);  // rounding must not reach the open end
    }
  } else {
    for (int k = 0; k < per; ++k) v[k] = u[k] < a ? T(1) : T(0);
  }
  return per;
}

}  // namespace tc
