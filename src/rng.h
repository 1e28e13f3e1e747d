// The default generator: Philox4x32-10, counter-based. Each request reserves
// a range of counters under a lock, then fills its elements in parallel from
// (seed, counter) alone, so results do not depend on the thread count, and a
// GPU backend can produce the same stream.
#pragma once
#include <cstdint>

#include "tensor.h"

namespace tc {

struct PhiloxState {
  uint64_t seed;
  uint64_t offset;  // first counter of this request
};

// Reserves n counters (each gives 4 uint32 values) from the default generator.
PhiloxState rng_reserve(uint64_t n);
void rng_manual_seed(uint64_t seed);
uint64_t rng_initial_seed();
// Seeds from entropy (or TC_SEED) at init; use_seed/seed from tc_init_options.
void rng_init(bool use_seed, uint64_t seed);

// The 4 uint32 outputs of Philox for (seed, counter).
void philox4x32(uint64_t seed, uint64_t counter, uint32_t out[4]);
// Uniform in [0, 1) from 32 random bits (float) or 2x32 (double).
inline float uint_to_unit_float(uint32_t x) { return float(x >> 8) * (1.0f / 16777216.0f); }
inline double uint_to_unit_double(uint32_t hi, uint32_t lo) {
  return double((uint64_t(hi) << 21) ^ (uint64_t(lo) >> 11)) * (1.0 / 9007199254740992.0);
}

// In place on a floating tensor (any strides), from the default generator.
void fill_uniform(const Tensor& t, double low, double high);
void fill_normal(const Tensor& t, double mean, double std);
// Bernoulli(keep) mask of 0/1 values in t's dtype (for dropout).
void fill_bernoulli(const Tensor& t, double keep);

}  // namespace tc
