#include "rng.h"

#include <chrono>
#include <cmath>
#include <mutex>
#include <random>

#include "cuda/dispatch.h"
#include "init.h"
#if TC_HAVE_CUDA
#include "cuda/random.h"
#endif

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

// Fills n contiguous values; value i depends only on (seed, offset, i).
template <typename T>
void generate(T* out, int64_t n, Dist dist, double a, double b) {
  // float: 4 values per Philox call; double: 2 (two 32-bit halves each).
  constexpr int64_t per = std::is_same_v<T, float> ? 4 : 2;
  const int64_t calls = (n + per - 1) / per;
  const PhiloxState st = rng_reserve(uint64_t(calls));
#pragma omp parallel for if (n > 65536) num_threads(num_threads()) schedule(static)
  for (int64_t c = 0; c < calls; ++c) {
    T v[4];
    philox_samples<T>(st.seed, st.offset + uint64_t(c), dist, a, b, v);
    const int64_t base = c * per;
    for (int k = 0; k < per && base + k < n; ++k) out[base + k] = v[k];
  }
}

void fill(const Tensor& t, Dist dist, double a, double b, const char* what) {
  TC_CHECK(is_floating(t->dtype), TC_ERR_DTYPE, what, ": expected a floating tensor but got ",
           dtype_name(t->dtype));
  const DType work = t->dtype == DType::f64 ? DType::f64 : DType::f32;
  if (on_cuda(t)) {
    // The same counters as the CPU path below reserves; the kernel writes
    // t's dtype directly (float16/bfloat16 rounded from the float samples,
    // as the CPU's copy_into does).
    Tensor dst = t->is_contiguous() ? t : empty(t->shape, t->dtype, t->device);
    const int64_t n = dst->numel(), per = work == DType::f64 ? 2 : 4;
    [[maybe_unused]] const PhiloxState st = rng_reserve(uint64_t((n + per - 1) / per));
    if (n > 0) TC_CUDA_CALL(cuda::fill_random(dst, dist, a, b, st.seed, st.offset));
    if (dst != t) copy_into(t, dst);
    return;
  }
  const bool direct = t->is_contiguous() && t->dtype == work;
  Tensor dst = direct ? t : empty(t->shape, work, kCPU);
  TC_DISPATCH_FLOATING(work, what, [&] { generate(dst->data_as<scalar_t>(), dst->numel(), dist, a, b); });
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
