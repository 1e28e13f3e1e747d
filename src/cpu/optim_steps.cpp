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
}  // namespace

void CpuBackend::rmsprop_step(const Tensor& w, const Tensor& g, const Tensor& sq, const Tensor& gavg,
                              const Tensor& buf, const optim::RmspropStep& s) const {
  TC_DISPATCH_FLOATING(w->dtype, "rmsprop", [&] {
    using T = scalar_t;
    T* pw = w->data_as<T>();
    const T* pg = g->data_as<T>();
    T* psq = sq->data_as<T>();
    T* pga = data_or_null<T>(gavg);
    T* pb = data_or_null<T>(buf);
    const int64_t n = w->numel();
#pragma omp parallel for if (n > kParallelFrom) num_threads(num_threads()) schedule(static)
    for (int64_t j = 0; j < n; ++j)
      optim::rmsprop_update(pw[j], pg[j], psq[j], pga ? pga + j : nullptr, pb ? pb + j : nullptr, s);
  });
}

void CpuBackend::adagrad_step(const Tensor& w, const Tensor& g, const Tensor& sum,
                              const optim::AdagradStep& s) const {
  TC_DISPATCH_FLOATING(w->dtype, "adagrad", [&] {
    using T = scalar_t;
    T* pw = w->data_as<T>();
    const T* pg = g->data_as<T>();
    T* ps = sum->data_as<T>();
    const int64_t n = w->numel();
#pragma omp parallel for if (n > kParallelFrom) num_threads(num_threads()) schedule(static)
    for (int64_t j = 0; j < n; ++j) optim::adagrad_update(pw[j], pg[j], ps[j], s);
  });
}

}  // namespace tc::cpu
