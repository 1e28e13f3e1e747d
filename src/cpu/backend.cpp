// The CPU's backend table (src/backend.h): the instance, and the reduction,
// random and optimizer primitives. Elementwise maps are in elementwise.cpp,
// the softmax family, losses and indexing in nn.cpp, GEMMs in linalg.cpp.
#include <cmath>
#include <type_traits>

#include "cpu/cpu_backend.h"
#include "cpu/dispatch.h"
#include "cpu/loops.h"
#include "cpu/reduce.h"
#include "init.h"

namespace tc::cpu {

const CpuBackend& backend() {
  static const CpuBackend instance;
  return instance;
}

void CpuBackend::reduce(ReduceKind op, const Tensor& out, const Tensor& a, double scale,
                        bool inf_to_zero) const {
  cpu::reduce(op, out, a);
  if (scale != 1.0) {  // mean: the sum (rounded to out's dtype) times the scale in that dtype
    TC_DISPATCH_FLOATING(out->dtype, "mean", [&] {
      using T = scalar_t;
      const T s = T(scale);
      map1<T, T>(out, out, [s](T x) { return T(x * s); });
    });
  }
  if (inf_to_zero) {
    TC_DISPATCH_FLOATING(out->dtype, "logsumexp", [&] {
      using T = scalar_t;
      map1<T, T>(out, out, [](T x) { return std::isinf(x) ? T(0) : x; });
    });
  }
}

void CpuBackend::arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& a,
                            int64_t dim) const {
  cpu::arg_reduce(is_max, values, indices, a, dim);
}

namespace {
// Pragmas cannot stand inside the dispatch macro's argument, hence a function.
template <typename T>
void philox_fill(T* out, int64_t n, RandDist dist, double a, double b, uint64_t seed, uint64_t offset) {
  // float: 4 values per Philox call; double: 2 (two 32-bit halves each).
  constexpr int64_t per = std::is_same_v<T, float> ? 4 : 2;
  const int64_t calls = (n + per - 1) / per;
#pragma omp parallel for if (n > 65536) num_threads(num_threads()) schedule(static)
  for (int64_t c = 0; c < calls; ++c) {
    T v[4];
    philox_samples<T>(seed, offset + uint64_t(c), dist, a, b, v);
    const int64_t base = c * per;
    for (int k = 0; k < per && base + k < n; ++k) out[base + k] = v[k];
  }
}
}  // namespace

void CpuBackend::fill_random(const Tensor& t, RandDist dist, double a, double b, uint64_t seed,
                             uint64_t offset) const {
  TC_DISPATCH_FLOATING(t->dtype, "random",
                       [&] { philox_fill(t->data_as<scalar_t>(), t->numel(), dist, a, b, seed, offset); });
}

void CpuBackend::sgd_step(const Tensor& w, const Tensor& g, const Tensor& buf,
                          const optim::SgdStep& s) const {
  TC_DISPATCH_FLOATING(w->dtype, "sgd", [&] {
    using T = scalar_t;
    T* pw = w->data_as<T>();
    const T* pg = g->data_as<T>();
    T* pb = buf ? buf->data_as<T>() : nullptr;
    const int64_t n = w->numel();
    for (int64_t j = 0; j < n; ++j) optim::sgd_update(pw[j], pg[j], pb ? pb + j : nullptr, s);
  });
}

void CpuBackend::adam_step(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v,
                           const optim::AdamStep& s) const {
  TC_DISPATCH_FLOATING(w->dtype, "adam", [&] {
    using T = scalar_t;
    T* pw = w->data_as<T>();
    const T* pg = g->data_as<T>();
    T* pm = m->data_as<T>();
    T* pv = v->data_as<T>();
    const int64_t n = w->numel();
    for (int64_t j = 0; j < n; ++j) optim::adam_update(pw[j], pg[j], pm[j], pv[j], s);
  });
}

}  // namespace tc::cpu
