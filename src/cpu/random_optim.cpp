// The CPU's generator and fused optimizer steps (src/backend/backend.h): the
// per-element math of math/philox.h and math/optim_math.h, which the CUDA
// kernels share. Compiled without multiply-add contraction (CMakeLists.txt)
// so that both round the same way. Compiled once per kernel set
// (src/cpu/kernels.h), into tc::cpu::isa_<set>.
#include <algorithm>
#include <type_traits>

#include "core/init.h"
#include "cpu/cpu_backend.h"
#include "cpu/kernels.h"
#include "cpu/loops.h"

namespace tc::cpu::TC_CPU_ISA_NS {

namespace {
// Philox call c fills elements [c * per, c * per + per) from counter
// offset + c alone, so the bits do not depend on how parallel_for splits the
// calls across threads (or whether it does).
template <typename T>
void philox_fill(T* out, int64_t n, RandDist dist, double a, double b, uint64_t seed, uint64_t offset) {
  // float: 4 values per Philox call; double: 2 (two 32-bit halves each).
  constexpr int64_t per = std::is_same_v<T, float> ? 4 : 2;
  const int64_t calls = (n + per - 1) / per;
  parallel_for(calls, kParallelGrain / per, [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) {
      T v[4];
      philox_samples<T>(seed, offset + uint64_t(c), dist, a, b, v);
      const int64_t base = c * per;
      for (int k = 0; k < per && base + k < n; ++k) out[base + k] = v[k];
    }
  });
}
}  // namespace

void fill_random(const Tensor& t, RandDist dist, double a, double b, uint64_t seed, uint64_t offset) {
  TC_DISPATCH_FLOATING(t->dtype, "random",
                       [&] { philox_fill(t->data_as<scalar_t>(), t->numel(), dist, a, b, seed, offset); });
}

namespace {
// SGD splits large parameters across threads through parallel_for (elements
// are independent: the same bits at any thread count). Plain SGD (no
// momentum buffer) runs each range through a function with restrict
// pointers and a constant null buffer, so the loop vectorizes however
// OpenMP outlines the parallel body.
template <typename T>
void sgd_plain_span(T* __restrict pw, const T* __restrict pg, int64_t n, const optim::SgdStep s) {
  for (int64_t j = 0; j < n; ++j) optim::sgd_update(pw[j], pg[j], static_cast<T*>(nullptr), s);
}

template <typename T>
void sgd_loop(T* pw, const T* pg, T* pb, int64_t n, const optim::SgdStep& s) {
  parallel_for(n, kParallelGrain, [&](int64_t lo, int64_t hi) {
    if (!pb) return sgd_plain_span(pw + lo, pg + lo, hi - lo, s);
    for (int64_t j = lo; j < hi; ++j) optim::sgd_update(pw[j], pg[j], pb + j, s);
  });
}
}  // namespace

void sgd_step(const Tensor& w, const Tensor& g, const Tensor& buf, const optim::SgdStep& s) {
  TC_DISPATCH_FLOATING(w->dtype, "sgd", [&] {
    using T = scalar_t;
    sgd_loop<T>(w->data_as<T>(), g->data_as<T>(), buf ? buf->data_as<T>() : nullptr, w->numel(), s);
  });
}

namespace {
// Adam over elements [lo, hi) of one parameter. The step is copied, so that
// stores through pw cannot alias it, and the loop vectorizes: its branches
// are loop-invariant selects, and sqrt is one instruction (this file is built
// with -fno-math-errno: CMakeLists.txt). Elements are independent, so the
// vector width and the thread split never change a bit.
template <typename T>
void adam_span(T* pw, const T* pg, T* pm, T* pv, int64_t lo, int64_t hi, const optim::AdamStep& step) {
  const optim::AdamStep s = step;
#pragma omp simd
  for (int64_t j = lo; j < hi; ++j) optim::adam_update(pw[j], pg[j], pm[j], pv[j], s);
}
}  // namespace

void adam_step(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v, const optim::AdamStep& s) {
  TC_DISPATCH_FLOATING(w->dtype, "adam", [&] {
    using T = scalar_t;
    T* pw = w->data_as<T>();
    const T* pg = g->data_as<T>();
    T* pm = m->data_as<T>();
    T* pv = v->data_as<T>();
    parallel_for(w->numel(), kParallelGrain,
                 [&](int64_t lo, int64_t hi) { adam_span(pw, pg, pm, pv, lo, hi, s); });
  });
}

}  // namespace tc::cpu::TC_CPU_ISA_NS
