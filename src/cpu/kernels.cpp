// Which kernel set runs (src/cpu/kernels.h), and the CpuBackend methods that
// go through it. Baseline code: it must run on every x86-64 CPU.
#include "cpu/kernels.h"

#include <cpuid.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "cpu/cpu_backend.h"

namespace tc::cpu {

namespace {

// F16C from CPUID leaf 1 (ECX bit 29): clang's __builtin_cpu_supports does not
// know "f16c" (the fuzzing build is clang's).
bool cpu_has_f16c() noexcept {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 29)) != 0;
}

bool cpu_runs(const KernelSet& k) noexcept {
  if (std::strcmp(k.name, "avx512") == 0) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx2") && cpu_has_f16c();
  }
  if (std::strcmp(k.name, "avx2") == 0) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && cpu_has_f16c();
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

// The CpuBackend methods that only call the set in use (cpu/kernel_list.h's
// FORWARD entries).
#define TC_CPU_KERNEL_FORWARD(ret, name, params, args) \
  ret CpuBackend::name params const { return kernels().name args; }
TC_CPU_KERNELS(TC_CPU_KERNEL_FORWARD, TC_CPU_KERNEL_NONE)
#undef TC_CPU_KERNEL_FORWARD

void CpuBackend::copy(const Tensor& dst, const Tensor& src) const { copy_into(dst, src); }

bool CpuBackend::gelu_keeping_cdf(const Tensor& y, const Tensor& cdf, const Tensor& x) const {
  if (x->dtype != DType::f32) return false;  // float64 keeps libm's erf (the row's formula)
  kernels().gelu_keeping_cdf(y, cdf, x);
  return true;
}

}  // namespace tc::cpu

namespace tc {
const char* cpu_kernel_set() { return cpu::kernels().name; }
}  // namespace tc
