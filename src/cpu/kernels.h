// The hot CPU kernels (elementwise maps, fused backward formulas, reductions,
// the generator and the optimizer steps, the softmax family and losses; the
// transformer primitives' sets all run baseline code: src/cpu/transformer.cpp)
// in several instruction sets, chosen once at run time from CPUID.
//
// src/cpu/elementwise.cpp, reduce.cpp, random_optim.cpp, nn.cpp,
// transformer.cpp, kernel_table.cpp and the generated per-row elementwise
// kernels (src/cpu/rows/) are compiled once per set
// (CMakeLists.txt: the baseline x86-64 objects in libtc, then AVX2 and
// AVX-512 copies with TC_CPU_ISA=avx2 / avx512), each into its own namespace
// tc::cpu::isa_<set> (cpu/isa.h), and kernel_table.cpp fills that set's
// KernelSet with its functions (the list: cpu/kernel_list.h). The rest
// of libtc is baseline code and calls the kernels through kernels(). Every set
// computes the same values bit for bit (no FMA contraction, the reductions'
// lane order is fixed): the set changes speed, never results
// (tests/gtest/test_cpu_kernels.cpp checks).
#pragma once
#include "cpu/isa.h"
#include "cpu/kernel_list.h"

namespace tc::cpu {

// One set's functions: every entry of cpu/kernel_list.h.
struct KernelSet {
  const char* name;  // "baseline", "avx2", "avx512" or "native" (a TC_NATIVE=ON build)
#define TC_CPU_KERNEL_POINTER(ret, name, params, args) ret(*name) params;
  TC_CPU_KERNELS(TC_CPU_KERNEL_POINTER, TC_CPU_KERNEL_POINTER)
#undef TC_CPU_KERNEL_POINTER
};

// The set in use: the best one this CPU runs, unless the environment variable
// TC_CPU_KERNELS (baseline, avx2, avx512) names a lower one; chosen on first use.
const KernelSet& kernels();

// Every set compiled into this build that this CPU can run, best first.
int available_kernel_sets(const KernelSet* out[], int cap) noexcept;

// Tests: use the set named `name` from now on (false, nothing changed, if it
// is not available). Not thread-safe against running kernels.
bool select_kernels(const char* name) noexcept;

// Each compiled set's table (cpu/kernel_table.cpp).
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
