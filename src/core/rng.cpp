#include "core/rng.h"

#include <chrono>
#include <cmath>
#include <mutex>
#include <random>

#include "backend/backend.h"
#include "core/init.h"

namespace tc {

namespace {
struct Generator {
  std::mutex mu;
  uint64_t seed = 67280421310721ull;
  uint64_t offset = 0;
};
Generator& generator() {
  static Generator* g = new Generator();
  return *g;
}
}  // namespace

PhiloxState rng_reserve(uint64_t n) {
  Generator& g = generator();
  std::lock_guard<std::mutex> lock(g.mu);
  PhiloxState s{g.seed, g.offset};
  g.offset += n;
  return s;
}

void rng_manual_seed(uint64_t seed) {
  Generator& g = generator();
  std::lock_guard<std::mutex> lock(g.mu);
  g.seed = seed;
  g.offset = 0;
}

uint64_t rng_initial_seed() {
  Generator& g = generator();
  std::lock_guard<std::mutex> lock(g.mu);
  return g.seed;
}

PhiloxState rng_get_state() {
  Generator& g = generator();
  std::lock_guard<std::mutex> lock(g.mu);
  return {g.seed, g.offset};
}

void rng_set_state(PhiloxState state) {
  Generator& g = generator();
  std::lock_guard<std::mutex> lock(g.mu);
  g.seed = state.seed;
  g.offset = state.offset;
}

void rng_init(bool use_seed, uint64_t seed) {
  if (!use_seed) {
    std::random_device rd;
    seed = (uint64_t(rd()) << 32) ^ rd() ^
           uint64_t(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  }
  rng_manual_seed(seed);
}

namespace {

using Dist = RandDist;

void fill(const Tensor& t, Dist dist, double a, double b, const char* what) {
  TC_CHECK(is_floating(t->dtype), TC_ERR_DTYPE, what, ": expected a floating tensor but got ",
           dtype_name(t->dtype));
  // A backend computing 16-bit floats writes t's dtype directly (rounded from
  // the float samples, as copy_into does); the CPU fills float32/float64.
  const Backend& be = backend_for(t);
  const DType work = be.computes_half ? t->dtype : t->dtype == DType::f64 ? DType::f64 : DType::f32;
  const bool direct = t->is_contiguous() && t->dtype == work;
  Tensor dst = direct ? t : empty(t->shape, work, t->device);
  // float: 4 values per Philox call; double: 2 (two 32-bit halves each).
  const int64_t n = dst->numel(), per = work == DType::f64 ? 2 : 4;
  const PhiloxState st = rng_reserve(uint64_t((n + per - 1) / per));
  if (n > 0) be.fill_random(dst, dist, a, b, st.seed, st.offset);
  if (dst != t) copy_into(t, dst);
}

}  // namespace

void fill_uniform(const Tensor& t, double low, double high) {
  TC_CHECK(low <= high, TC_ERR_INVALID_ARGUMENT, "uniform: low ", low, " > high ", high);
  fill(t, Dist::uniform, low, high, "uniform");
}
void fill_normal(const Tensor& t, double mean, double std) {
  TC_CHECK(std >= 0, TC_ERR_INVALID_ARGUMENT, "normal: std must be >= 0, got ", std);
  fill(t, Dist::normal, mean, std, "normal");
}
void fill_bernoulli(const Tensor& t, double keep) {
  TC_CHECK(keep >= 0 && keep <= 1, TC_ERR_INVALID_ARGUMENT, "bernoulli: probability ", keep,
           " is not in [0, 1]");
  fill(t, Dist::bernoulli, keep, 0, "bernoulli");
}

}  // namespace tc
