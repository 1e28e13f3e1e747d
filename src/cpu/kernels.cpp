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

void CpuBackend::softmax(const Tensor& y, const Tensor& x, int64_t dim, bool log) const {
  return kernels().softmax(y, x, dim, log);
}
void CpuBackend::softmax_backward(const Tensor& gx, const Tensor& g, const Tensor& y, int64_t dim,
                                  bool log) const {
  return kernels().softmax_backward(gx, g, y, dim, log);
}
void CpuBackend::cross_entropy_forward(const Tensor& probs, const Tensor& losses, const Tensor& x,
                                       const Tensor& target) const {
  return kernels().cross_entropy_forward(probs, losses, x, target);
}
void CpuBackend::nll_forward(const Tensor& losses, const Tensor& x, const Tensor& target) const {
  return kernels().nll_forward(losses, x, target);
}
void CpuBackend::reduce_losses(const Tensor& out, const Tensor& losses, int32_t reduction) const {
  return kernels().reduce_losses(out, losses, reduction);
}
void CpuBackend::cross_entropy_backward(const Tensor& gx, const Tensor& probs, const Tensor& target,
                                        const Tensor& g, int32_t reduction) const {
  return kernels().cross_entropy_backward(gx, probs, target, g, reduction);
}
void CpuBackend::nll_backward(const Tensor& gx, const Tensor& target, const Tensor& g,
                              int32_t reduction) const {
  return kernels().nll_backward(gx, target, g, reduction);
}
Tensor CpuBackend::mse_loss(const Tensor& input, const Tensor& target, int32_t reduction) const {
  return kernels().mse_loss(input, target, reduction);
}
Tensor CpuBackend::mse_loss_backward(const Tensor& g, const Tensor& input, const Tensor& target,
                                     int32_t reduction) const {
  return kernels().mse_loss_backward(g, input, target, reduction);
}
int64_t CpuBackend::first_out_of_range(const Tensor& index, int64_t bound) const {
  return kernels().first_out_of_range(index, bound);
}
int64_t CpuBackend::read_index(const Tensor& index, int64_t pos) const {
  return kernels().read_index(index, pos);
}
void CpuBackend::index_gather(const Tensor& out, const Tensor& a, int64_t dim, const Tensor& index,
                              bool index_select) const {
  return kernels().index_gather(out, a, dim, index, index_select);
}
void CpuBackend::index_scatter_add(const Tensor& gi, const Tensor& g, int64_t dim, const Tensor& idx,
                                   bool index_select) const {
  return kernels().index_scatter_add(gi, g, dim, idx, index_select);
}
void CpuBackend::one_hot(const Tensor& out, const Tensor& index, int64_t classes) const {
  return kernels().one_hot(out, index, classes);
}
void CpuBackend::norm_forward(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                              const Tensor& w, const Tensor& b, double eps) const {
  return kernels().norm_forward(y, mean, rstd, x, w, b, eps);
}
void CpuBackend::norm_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& g,
                               const Tensor& x, const Tensor& mean, const Tensor& rstd,
                               const Tensor& w) const {
  return kernels().norm_backward(gx, gw, gb, g, x, mean, rstd, w);
}
void CpuBackend::causal_softmax(const Tensor& y, const Tensor& x, double scale) const {
  return kernels().causal_softmax(y, x, scale);
}
void CpuBackend::causal_softmax_backward(const Tensor& gx, const Tensor& g, const Tensor& y,
                                         double scale) const {
  return kernels().causal_softmax_backward(gx, g, y, scale);
}
bool CpuBackend::gelu_keeping_cdf(const Tensor& y, const Tensor& cdf, const Tensor& x) const {
  if (x->dtype != DType::f32) return false;  // float64 keeps libm's erf (the row's formula)
  kernels().gelu_keeping_cdf(y, cdf, x);
  return true;
}
void CpuBackend::gelu_backward_from_cdf(const Tensor& gx, const Tensor& g, const Tensor& x,
                                        const Tensor& cdf) const {
  return kernels().gelu_backward_from_cdf(gx, g, x, cdf);
}
void CpuBackend::triangle(const Tensor& out, const Tensor& a, int64_t diagonal, bool lower) const {
  return kernels().triangle(out, a, diagonal, lower);
}
void CpuBackend::cumsum(const Tensor& out, const Tensor& a, int64_t dim, bool reverse) const {
  return kernels().cumsum(out, a, dim, reverse);
}
void CpuBackend::topk(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k,
                      bool largest) const {
  return kernels().topk(values, indices, a, k, largest);
}
int64_t CpuBackend::multinomial(const Tensor& out, const Tensor& p, const Tensor& u, bool replacement) const {
  return kernels().multinomial(out, p, u, replacement);
}

}  // namespace tc::cpu

namespace tc {
const char* cpu_kernel_set() { return cpu::kernels().name; }
}  // namespace tc
