// The CPU's fused RMSprop and Adagrad steps (src/backend/backend.h): one pass over
// each parameter's elements with the per-element math of math/optim_math.h,
// which the CUDA kernels (src/cuda/optim_steps.cu) share; compiled without
// multiply-add contraction (CMakeLists.txt) so that both round the same way.
// Elements are independent: large parameters split across OpenMP threads.
#include "core/init.h"
#include "cpu/cpu_backend.h"
#include "cpu/loops.h"

namespace tc::cpu {

namespace {

template <typename T>
T* data_or_null(const Tensor& t) {
  return t ? t->data_as<T>() : nullptr;
}

// Elements are independent, so parallel_for's split (off OpenMP below its
// grain) leaves every value as one thread computes it.
template <typename T>
void rmsprop_loop(T* pw, const T* pg, T* psq, T* pga, T* pb, int64_t n, const optim::RmspropStep& s) {
  parallel_for(n, kParallelGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t j = lo; j < hi; ++j)
      optim::rmsprop_update(pw[j], pg[j], psq[j], pga ? pga + j : nullptr, pb ? pb + j : nullptr, s);
  });
}

template <typename T>
void adagrad_loop(T* pw, const T* pg, T* ps, int64_t n, const optim::AdagradStep& s) {
  parallel_for(n, kParallelGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t j = lo; j < hi; ++j) optim::adagrad_update(pw[j], pg[j], ps[j], s);
  });
}
}  // namespace

void CpuBackend::rmsprop_step(const Tensor& w, const Tensor& g, const Tensor& sq, const Tensor& gavg,
                              const Tensor& buf, const optim::RmspropStep& s) const {
  TC_DISPATCH_FLOATING(w->dtype, "rmsprop", [&] {
    using T = scalar_t;
    rmsprop_loop<T>(w->data_as<T>(), g->data_as<T>(), sq->data_as<T>(), data_or_null<T>(gavg),
                    data_or_null<T>(buf), w->numel(), s);
  });
}

void CpuBackend::adagrad_step(const Tensor& w, const Tensor& g, const Tensor& sum,
                              const optim::AdagradStep& s) const {
  TC_DISPATCH_FLOATING(w->dtype, "adagrad", [&] {
    using T = scalar_t;
    adagrad_loop<T>(w->data_as<T>(), g->data_as<T>(), sum->data_as<T>(), w->numel(), s);
  });
}

}  // namespace tc::cpu
