// The hot CPU kernels (elementwise maps, fused backward formulas, reductions,
// the generator and the optimizer steps, the softmax family and losses; the
// transformer primitives' sets all run baseline code: src/cpu/transformer.cpp)
// in several instruction sets, chosen once at run time from CPUID.
//
// src/cpu/elementwise.cpp, reduce.cpp, random_optim.cpp, nn.cpp and
// transformer.cpp are compiled once per set
// (CMakeLists.txt: the baseline x86-64 objects in libtc, then AVX2 and
// AVX-512 copies with TC_CPU_ISA=avx2 / avx512), each into its own namespace
// tc::cpu::isa_<set>, and each fills a KernelSet with its functions. The rest
// of libtc is baseline code and calls the kernels through kernels(). Every set
// computes the same values bit for bit (no FMA contraction, the reductions'
// lane order is fixed): the set changes speed, never results
// (tests/gtest/test_cpu_kernels.cpp checks).
#pragma once
#include "backend/backend.h"
#include "cpu/reduce.h"

namespace tc::cpu {

struct KernelSet {
  const char* name;  // "baseline", "avx2", "avx512" or "native" (a TC_NATIVE=ON build)
  void (*binary)(ops::BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b);
  void (*binary_scalar)(ops::ScalarOp op, const Tensor& out, const Tensor& a, double s);
  void (*unary)(ops::UnaryOp op, const Tensor& out, const Tensor& a, double p, double q);
  void (*clamp)(const Tensor& out, const Tensor& a, double lo, double hi);
  void (*where)(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);
  void (*grad2)(ew::Grad f, const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p);
  void (*grad3)(ew::Grad f, const Tensor& out, const Tensor& g, const Tensor& x, const Tensor& y);
  void (*reduce)(Reduce op, const Tensor& out, const Tensor& a);
  void (*arg_reduce)(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim);
  // random_optim.cpp: the generator and the optimizer steps.
  void (*fill_random)(const Tensor& t, RandDist dist, double a, double b, uint64_t seed, uint64_t offset);
  void (*sgd_step)(const Tensor& w, const Tensor& g, const Tensor& buf, const optim::SgdStep& s);
  void (*adam_step)(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v,
                    const optim::AdamStep& s);
  // nn.cpp (softmax family, losses, indexing) and transformer.cpp (norms,
  // causal softmax, triangles, cumsum, topk, multinomial): every CpuBackend
  // method those files define, in the order they define them.
  void (*softmax)(const Tensor& y, const Tensor& x, int64_t dim, bool log);
  void (*softmax_backward)(const Tensor& gx, const Tensor& g, const Tensor& y, int64_t dim, bool log);
  void (*cross_entropy_forward)(const Tensor& probs, const Tensor& losses, const Tensor& x,
                                const Tensor& target);
  void (*nll_forward)(const Tensor& losses, const Tensor& x, const Tensor& target);
  void (*reduce_losses)(const Tensor& out, const Tensor& losses, int32_t reduction);
  void (*cross_entropy_backward)(const Tensor& gx, const Tensor& probs, const Tensor& target, const Tensor& g,
                                 int32_t reduction);
  void (*nll_backward)(const Tensor& gx, const Tensor& target, const Tensor& g, int32_t reduction);
  Tensor (*mse_loss)(const Tensor& input, const Tensor& target, int32_t reduction);
  Tensor (*mse_loss_backward)(const Tensor& g, const Tensor& input, const Tensor& target, int32_t reduction);
  int64_t (*first_out_of_range)(const Tensor& index, int64_t bound);
  int64_t (*read_index)(const Tensor& index, int64_t pos);
  void (*index_gather)(const Tensor& out, const Tensor& a, int64_t dim, const Tensor& index,
                       bool index_select);
  void (*index_scatter_add)(const Tensor& gi, const Tensor& g, int64_t dim, const Tensor& idx,
                            bool index_select);
  void (*one_hot)(const Tensor& out, const Tensor& index, int64_t classes);
  void (*norm_forward)(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                       const Tensor& w, const Tensor& b, double eps);
  void (*norm_backward)(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& g,
                        const Tensor& x, const Tensor& mean, const Tensor& rstd, const Tensor& w);
  void (*causal_softmax)(const Tensor& y, const Tensor& x, double scale);
  void (*causal_softmax_backward)(const Tensor& gx, const Tensor& g, const Tensor& y, double scale);
  void (*triangle)(const Tensor& out, const Tensor& a, int64_t diagonal, bool lower);
  void (*cumsum)(const Tensor& out, const Tensor& a, int64_t dim, bool reverse);
  void (*topk)(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k, bool largest);
  int64_t (*multinomial)(const Tensor& out, const Tensor& p, const Tensor& u, bool replacement);
  // reduce.cpp: linear's bias gradient, out [cols] = the column sums of g2 [rows, cols].
  void (*column_sums)(const Tensor& out, const Tensor& g2);
  void (*gelu_keeping_cdf)(const Tensor& y, const Tensor& cdf, const Tensor& x);
  void (*gelu_backward_from_cdf)(const Tensor& gx, const Tensor& g, const Tensor& x, const Tensor& cdf);
};

// The set in use: the best one this CPU runs, unless the environment variable
// TC_CPU_KERNELS (baseline, avx2, avx512) names a lower one; chosen on first use.
const KernelSet& kernels();

// Every set compiled into this build that this CPU can run, best first.
int available_kernel_sets(const KernelSet* out[], int cap) noexcept;

// Tests: use the set named `name` from now on (false, nothing changed, if it
// is not available). Not thread-safe against running kernels.
bool select_kernels(const char* name) noexcept;

// Each compiled set's table (defined at the end of elementwise.cpp).
#define TC_CPU_DECLARE_KERNEL_SET(isa) \
  namespace isa_##isa {                \
    extern const KernelSet kKernels;   \
  }
TC_CPU_DECLARE_KERNEL_SET(baseline)
#ifdef TC_CPU_MULTI_ISA
TC_CPU_DECLARE_KERNEL_SET(avx2)
TC_CPU_DECLARE_KERNEL_SET(avx512)
#endif

}  // namespace tc::cpu

// The namespace of the set this translation unit is compiled for.
#ifndef TC_CPU_ISA
#define TC_CPU_ISA baseline
#endif
#define TC_CPU_ISA_NS_(isa) isa_##isa
#define TC_CPU_ISA_NS_X(isa) TC_CPU_ISA_NS_(isa)
#define TC_CPU_ISA_NS TC_CPU_ISA_NS_X(TC_CPU_ISA)
#define TC_CPU_ISA_STR_(isa) #isa
#define TC_CPU_ISA_STR_X(isa) TC_CPU_ISA_STR_(isa)
