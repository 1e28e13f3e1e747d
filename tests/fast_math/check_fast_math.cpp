// Accuracy of math/fast_math.h's float e^x and tanh(x) (the CPU elementwise
// kernels' exp, tanh and sigmoid) against double-precision libm rounded to
// float: every STRIDE-th float bit pattern (all signs, NaNs, infinities and
// denormals among them; STRIDE = 61 unless given as argv[1], 1 for all 2^32),
// every float within 4096 ulp of the functions' thresholds, and exact
// results where libm's are exact (+-0, +-inf, NaN, e^0 = 1). Fails (exit 1)
// when e^x is more than 1 ulp off, tanh or sigmoid more than 2 (sigmoid's
// results below FLT_MIN, where e^-x has overflowed, within FLT_MIN, as
// libm's expf gives them); prints the worst case of each and libm's own worst
// case on the same inputs, and the time per element of the fast and the libm
// loops (CPU time; informational).
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "math/fast_math.h"

namespace {

float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
uint32_t to_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}
// Floats in order as integers: the distance in ulp is their difference.
int64_t ordered(float f) {
  const uint32_t b = to_bits(f);
  return (b & 0x80000000u) ? -int64_t(b & 0x7fffffffu) : int64_t(b);
}
// Distance in ulp (NaN against NaN is 0; NaN against a number is huge).
int64_t ulp_distance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return (std::isnan(a) && std::isnan(b)) ? 0 : INT64_MAX;
  const int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

double sigmoid_ref(double x) { return 1.0 / (1.0 + std::exp(-x)); }
inline __attribute__((always_inline)) float sigmoid_fast(float x) {
  return 1.0f / (1.0f + tc::ew::fast::exp(-x));
}
inline __attribute__((always_inline)) float sigmoid_libm(float x) { return 1.0f / (1.0f + ::expf(-x)); }

struct Fn {
  const char* name;
  float (*fast)(float);
  float (*libm)(float);
  double (*ref)(double);
  int64_t max_ulp;
};
inline __attribute__((always_inline)) float exp_fast(float x) { return tc::ew::fast::exp(x); }
inline __attribute__((always_inline)) float tanh_fast(float x) { return tc::ew::fast::tanh(x); }
float exp_libm(float x) { return ::expf(x); }
float tanh_libm(float x) { return ::tanhf(x); }
double exp_ref(double x) { return std::exp(x); }
double tanh_ref(double x) { return std::tanh(x); }

struct Worst {
  int64_t ulp = 0;
  float x = 0;
};

// The distance of got from the reference; sigmoid's results below the
// normal range (x below about -87.3, where 1 + e^-x overflows before the
// division, as libm's formula does too) count as exact within FLT_MIN.
int64_t error_of(const Fn& f, float x, float got) {
  const float want = float(f.ref(double(x)));
  if (f.ref == sigmoid_ref && std::fabs(want) < 1.1754944e-38f && std::fabs(got) <= 1.1754944e-38f) return 0;
  return ulp_distance(got, want);
}

void check(const Fn& f, const std::vector<float>& xs, Worst& fast, Worst& libm) {
  std::vector<float> out(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) out[i] = f.fast(xs[i]);
  for (size_t i = 0; i < xs.size(); ++i) {
    const int64_t e = error_of(f, xs[i], out[i]);
    if (e > fast.ulp) fast = {e, xs[i]};
    const int64_t l = error_of(f, xs[i], f.libm(xs[i]));
    if (l > libm.ulp) libm = {l, xs[i]};
  }
}

int failures = 0;
void expect_bits(const char* what, float got, float want) {
  const bool same = std::isnan(want) ? std::isnan(got) : to_bits(got) == to_bits(want);
  if (!same) {
    std::printf("FAIL %s: got %a, want %a\n", what, double(got), double(want));
    ++failures;
  }
}

// The kernels' loop shape: the function inlined into a loop over arrays
// (vectorized when the function is straight-line code).
template <float (*F)(float)>
__attribute__((noinline)) void map(const float* __restrict in, float* __restrict out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = F(in[i]);
}

template <float (*F)(float)>
double seconds_per_element(const std::vector<float>& xs) {
  std::vector<float> out(xs.size());
  double best = 1e30;
  for (int round = 0; round < 3; ++round) {  // CPU time, the best of 3 (a shared machine)
    const std::clock_t t0 = std::clock();
    map<F>(xs.data(), out.data(), xs.size());
    const double s = double(std::clock() - t0) / CLOCKS_PER_SEC;
    best = s < best ? s : best;
  }
  volatile float sink = out[xs.size() / 2];
  (void)sink;
  return best / double(xs.size());
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t stride = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 61;
  if (stride == 0) return 2;
  using tc::ew::fast::exp;
  using tc::ew::fast::tanh;
  const float inf = INFINITY, nan = NAN;

  // Exact cases.
  expect_bits("exp(0)", exp(0.0f), 1.0f);
  expect_bits("exp(-0)", exp(-0.0f), 1.0f);
  expect_bits("exp(-inf)", exp(-inf), 0.0f);
  expect_bits("exp(inf)", exp(inf), inf);
  expect_bits("exp(nan)", exp(nan), nan);
  expect_bits("exp(-nan)", exp(-nan), nan);
  expect_bits("exp(88.73)", exp(88.73f), inf);
  expect_bits("exp(1e30)", exp(1e30f), inf);
  expect_bits("exp(-104)", exp(-104.0f), 0.0f);
  expect_bits("exp(-1e30)", exp(-1e30f), 0.0f);
  expect_bits("exp(FLT_TRUE_MIN)", exp(from_bits(1)), 1.0f);
  expect_bits("tanh(0)", tanh(0.0f), 0.0f);
  expect_bits("tanh(-0)", tanh(-0.0f), -0.0f);
  expect_bits("tanh(inf)", tanh(inf), 1.0f);
  expect_bits("tanh(-inf)", tanh(-inf), -1.0f);
  expect_bits("tanh(nan)", tanh(nan), nan);
  expect_bits("tanh(FLT_TRUE_MIN)", tanh(from_bits(1)), from_bits(1));
  expect_bits("tanh(-FLT_TRUE_MIN)", tanh(from_bits(0x80000001u)), from_bits(0x80000001u));
  expect_bits("tanh(FLT_MAX)", tanh(from_bits(0x7f7fffffu)), 1.0f);
  expect_bits("tanh(-20)", tanh(-20.0f), -1.0f);
  expect_bits("sigmoid(inf)", sigmoid_fast(inf), 1.0f);
  expect_bits("sigmoid(-inf)", sigmoid_fast(-inf), 0.0f);
  expect_bits("sigmoid(0)", sigmoid_fast(0.0f), 0.5f);

  // 4096 ulp either side of each threshold, then the strided sweep in chunks.
  std::vector<float> near;
  const float thresholds[] = {88.7228394f, -87.3365479f, -103.972076f, -103.278931f, 0.625f, 9.01f,
                              0.0f,        1.0f,         0.5f,         0.34657359f,  44.0f};
  for (float t : thresholds) {
    for (float s : {t, -t}) {
      const int64_t c = ordered(s);
      for (int64_t d = -4096; d <= 4096; ++d) {
        const int64_t o = c + d;
        near.push_back(from_bits(o < 0 ? uint32_t(-o) | 0x80000000u : uint32_t(o)));
      }
    }
  }
  const Fn fns[] = {{"exp", exp_fast, exp_libm, exp_ref, 1},
                    {"tanh", tanh_fast, tanh_libm, tanh_ref, 2},
                    {"sigmoid", sigmoid_fast, sigmoid_libm, sigmoid_ref, 2}};
  Worst fast[3], libm[3];
  uint64_t count = near.size();
  for (int k = 0; k < 3; ++k) check(fns[k], near, fast[k], libm[k]);
  std::vector<float> xs;
  const uint64_t chunk = uint64_t(1) << 22;
  for (uint64_t b = 0; b < (uint64_t(1) << 32);) {
    xs.clear();
    for (; b < (uint64_t(1) << 32) && xs.size() < chunk; b += stride) xs.push_back(from_bits(uint32_t(b)));
    count += xs.size();
    for (int k = 0; k < 3; ++k) check(fns[k], xs, fast[k], libm[k]);
  }
  for (int k = 0; k < 3; ++k) {
    const Fn& f = fns[k];
    std::printf("%-8s %" PRIu64 " values: max error %" PRId64 " ulp at %a (libm: %" PRId64 " ulp at %a)\n",
                f.name, count, fast[k].ulp, double(fast[k].x), libm[k].ulp, double(libm[k].x));
    if (fast[k].ulp > f.max_ulp) {
      std::printf("FAIL %s: %" PRId64 " ulp above the bound of %" PRId64 "\n", f.name, fast[k].ulp,
                  f.max_ulp);
      ++failures;
    }
  }

  // Speed on [-10, 10] (informational).
  std::vector<float> grid(1 << 22);
  for (size_t i = 0; i < grid.size(); ++i) grid[i] = -10.0f + 20.0f * float(i) / float(grid.size());
  std::printf("ns per element: exp %.2f (libm %.2f), tanh %.2f (libm %.2f), sigmoid %.2f (libm %.2f)\n",
              1e9 * seconds_per_element<exp_fast>(grid), 1e9 * seconds_per_element<exp_libm>(grid),
              1e9 * seconds_per_element<tanh_fast>(grid), 1e9 * seconds_per_element<tanh_libm>(grid),
              1e9 * seconds_per_element<sigmoid_fast>(grid), 1e9 * seconds_per_element<sigmoid_libm>(grid));
  std::printf(failures ? "%d FAILED\n" : "all passed\n", failures);
  return failures ? 1 : 0;
}
