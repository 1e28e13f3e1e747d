#include "rng.h"

#include <chrono>
#include <cmath>
#include <mutex>
#include <random>

#include "init.h"

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

void philox4x32(uint64_t seed, uint64_t counter, uint32_t out[4]) {
  uint32_t c0 = uint32_t(counter), c1 = uint32_t(counter >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t(0xD2511F53u) * c0;
    const uint64_t p1 = uint64_t(0xCD9E8D57u) * c2;
    const uint32_t n0 = uint32_t(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = uint32_t(p0 >> 32) ^ c3 ^ k1;
    c1 = uint32_t(p1);
    c3 = uint32_t(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

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

void rng_init(bool use_seed, uint64_t seed) {
  if (!use_seed) {
    std::random_device rd;
    seed = (uint64_t(rd()) << 32) ^ rd() ^
           uint64_t(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  }
  rng_manual_seed(seed);
}

namespace {

enum class Dist { uniform, normal, bernoulli };

// Fills n contiguous values; value i depends only on (seed, offset, i).
template <typename T>
void generate(T* out, int64_t n, Dist dist, double a, double b) {
  // float: 4 values per Philox call; double: 2 (two 32-bit halves each).
  constexpr int64_t per = std::is_same_v<T, float> ? 4 : 2;
  const int64_t calls = (n + per - 1) / per;
  const PhiloxState st = rng_reserve(uint64_t(calls));
#pragma omp parallel for if (n > 65536) num_threads(num_threads()) schedule(static)
  for (int64_t c = 0; c < calls; ++c) {
    uint32_t r[4];
    philox4x32(st.seed, st.offset + uint64_t(c), r);
    double u[4];
    if constexpr (per == 4) {
      for (int k = 0; k < 4; ++k) u[k] = uint_to_unit_float(r[k]);
    } else {
      u[0] = uint_to_unit_double(r[0], r[1]);
      u[1] = uint_to_unit_double(r[2], r[3]);
    }
    T v[4];
    if (dist == Dist::normal) {
      // Box-Muller on pairs; 1 - u keeps the log away from 0.
      for (int k = 0; k < per; k += 2) {
        const double radius = std::sqrt(-2.0 * std::log(1.0 - u[k]));
        const double theta = 2.0 * M_PI * u[k + 1];
        v[k] = T(a + b * radius * std::cos(theta));
        v[k + 1] = T(a + b * radius * std::sin(theta));
      }
    } else if (dist == Dist::uniform) {
      for (int k = 0; k < per; ++k) {
        T x = T(a + (b - a) * u[k]);
        v[k] = x < T(b) ? x : T(a);  // rounding must not reach the open end
      }
    } else {
      for (int k = 0; k < per; ++k) v[k] = u[k] < a ? T(1) : T(0);
    }
    const int64_t base = c * per;
    for (int k = 0; k < per && base + k < n; ++k) out[base + k] = v[k];
  }
}

void fill(const Tensor& t, Dist dist, double a, double b, const char* what) {
  TC_CHECK(is_floating(t->dtype), TC_ERR_DTYPE, what, ": expected a floating tensor but got ",
           dtype_name(t->dtype));
  const DType work = t->dtype == DType::f64 ? DType::f64 : DType::f32;
  // Device tensors get the same stream of numbers as the CPU, made on the
  // host and copied: reproducible across devices for one seed.
  const bool direct = t->is_contiguous() && t->dtype == work && device_type(t->device) == TC_DEVICE_CPU;
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
