// The default generator: Philox4x32-10, counter-based. Each request reserves
// a range of counters under a lock, then fills its elements in parallel from
// (seed, counter) alone, so results do not depend on the thread count, and a
// GPU backend can produce the same stream.
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "math/philox.h"

namespace tc {

struct PhiloxState {
  uint64_t seed;
  uint64_t offset;  // first counter of this request
};

// Reserves n counters (each gives 4 uint32 values) from the default generator.
PhiloxState rng_reserve(uint64_t n);
void rng_manual_seed(uint64_t seed);
uint64_t rng_initial_seed();
// The default generator's whole state (tc_get_rng_state / tc_set_rng_state).
PhiloxState rng_get_state();
void rng_set_state(PhiloxState state);
// Seeds from entropy (or TC_SEED) at init; use_seed/seed from tc_init_options.
void rng_init(bool use_seed, uint64_t seed);

// philox4x32 and the sample mapping live in philox.h (shared with CUDA).

// In place on a floating tensor (any strides, CPU or CUDA), from the default
// generator: a CUDA tensor gets exactly the numbers a CPU tensor of the same
// shape and dtype would (same seed, same counters; normal samples within an
// ulp of the double where the device's log/sin/cos round differently).
void fill_uniform(const Tensor& t, double low, double high);
void fill_normal(const Tensor& t, double mean, double std);
// Bernoulli(keep) mask of 0/1 values in t's dtype (for dropout).
void fill_bernoulli(const Tensor& t, double keep);

}  // namespace tc
