// The CPU's fused RMSprop and Adagrad steps (src/backend.h): one pass over
// each parameter's elements with the per-element math of math/optim_math.h,
// which the CUDA kernels (src/cuda/optim_steps.cu) share; compiled without
// multiply-add contraction (CMakeLists.txt) so that both round the same way.
// Elements are independent: large parameters split across OpenMP threads.
#include "cpu/cpu_backend.h"
#include "init.h"

namespace tc::cpu {

namespace {
constexpr int64_t kParallelFrom = 65536;

template <typename T>
T* data_or_null(const Tensor& t) {
  return t ? t->data_as<T>() : nullptr;
}

// Pragmas cannot stand inside the dispatch macro's argument, hence functions.
template <typename T>
void rmsprop_loop(T* pw, const T* pg, T* psq, T* pga, T* pb, int64_t n, const optim::RmspropStep& s) {
#pragma omp parallel for if (n > kParallelFrom) num_threads(num_threads()) schedule(static)
  for (int64_t j = 0; j < n; ++j)
    optim::rmsprop_update(pw[j], pg[j], psq[j], pga ? pga + j : nullptr, pb ? pb + j : nullptr, s);
}

template <typename T>
void adagrad_loop(T* pw, const T* pg, T* ps, int64_t n, const optim::AdagradStep& s) {
#pragma omp parallel for if (n > kParallelFrom) num_threads(num_threads()) schedule(static)
  for (int64_t j = 0; j < n; ++j) optim::adagrad_update(pw[j], pg[j], ps[j], s);
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
