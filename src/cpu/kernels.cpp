// Which kernel set runs (src/cpu/kernels.h), and the CpuBackend methods that
// go through it. Baseline code: it must run on every x86-64 CPU.
#include "cpu/kernels.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "cpu/cpu_backend.h"

namespace tc::cpu {

namespace {

bool cpu_runs(const KernelSet& k) noexcept {
  if (std::strcmp(k.name, "avx512") == 0) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  }
  if (std::strcmp(k.name, "avx2") == 0) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  }
  return true;  // baseline, or native (built for this machine on purpose)
}

// Every compiled set, best first.
const KernelSet* const kCompiled[] = {
#ifdef TC_CPU_MULTI_ISA
    &isa_avx512::kKernels,
    &isa_avx2::kKernels,
#endif
    &isa_baseline::kKernels,
};

// Out of line: it runs once, and keeps the CpuBackend methods small.
__attribute__((noinline)) const KernelSet* choose() noexcept {
  const KernelSet* avail[4] = {};
  const int n = available_kernel_sets(avail, 4);
  if (const char* want = std::getenv("TC_CPU_KERNELS")) {
    for (int i = 0; i < n; ++i)
      if (std::strcmp(avail[i]->name, want) == 0) return avail[i];
  }
  return avail[0];  // the baseline set is always available
}

std::atomic<const KernelSet*> g_chosen{nullptr};

}  // namespace

int available_kernel_sets(const KernelSet* out[], int cap) noexcept {
  int n = 0;
  for (const KernelSet* k : kCompiled)
    if (n < cap && cpu_runs(*k)) out[n++] = k;
  return n;
}

const KernelSet& kernels() {
  const KernelSet* k = g_chosen.load(std::memory_order_acquire);
  if (!k) {
    const KernelSet* expected = nullptr;
    g_chosen.compare_exchange_strong(expected, choose(), std::memory_order_acq_rel);
    k = g_chosen.load(std::memory_order_acquire);
  }
  return *k;
}

bool select_kernels(const char* name) noexcept {
  const KernelSet* avail[4] = {};
  const int n = available_kernel_sets(avail, 4);
  for (int i = 0; i < n; ++i) {
    if (name && std::strcmp(avail[i]->name, name) == 0) {
      g_chosen.store(avail[i], std::memory_order_release);
      return true;
    }
  }
  return false;
}

void reduce(Reduce op, const Tensor& out, const Tensor& a) { kernels().reduce(op, out, a); }

void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim) {
  kernels().arg_reduce(is_max, values, indices, a, dim);
}

void CpuBackend::binary(ops::BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) const {
  kernels().binary(op, out, a, b);
}
void CpuBackend::binary_scalar(ops::ScalarOp op, const Tensor& out, const Tensor& a, double s) const {
  kernels().binary_scalar(op, out, a, s);
}
void CpuBackend::unary(ops::UnaryOp op, const Tensor& out, const Tensor& a, double p, double q) const {
  kernels().unary(op, out, a, p, q);
}
void CpuBackend::clamp(const Tensor& out, const Tensor& a, double lo, double hi) const {
  kernels().clamp(out, a, lo, hi);
}
void CpuBackend::where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) const {
  kernels().where(out, cond, a, b);
}
void CpuBackend::grad2(ew::Grad f, const Tensor& out, const Tensor& g, const Tensor& x,
                       const ew::GradParams& p) const {
  kernels().grad2(f, out, g, x, p);
}
void CpuBackend::grad3(ew::Grad f, const Tensor& out, const Tensor& g, const Tensor& x,
                       const Tensor& y) const {
  kernels().grad3(f, out, g, x, y);
}
void CpuBackend::copy(const Tensor& dst, const Tensor& src) const { copy_into(dst, src); }
void CpuBackend::fill_random(const Tensor& t, RandDist dist, double a, double b, uint64_t seed,
                             uint64_t offset) const {
  kernels().fill_random(t, dist, a, b, seed, offset);
}
void CpuBackend::sgd_step(const Tensor& w, const Tensor& g, const Tensor& buf,
                          const optim::SgdStep& s) const {
  kernels().sgd_step(w, g, buf, s);
}
void CpuBackend::adam_step(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v,
                           const optim::AdamStep& s) const {
  kernels().adam_step(w, g, m, v, s);
}

}  // namespace tc::cpu

namespace tc {
const char* cpu_kernel_set() { return cpu::kernels().name; }
}  // namespace tc
