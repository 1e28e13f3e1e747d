// This core's real float32 multiply-add peak, 1 and 2 threads: the FLOP/s
// bound no GEMM can beat (bench/run.sh divides the MLP step's FLOPs by it).
// Each thread runs a long chain of independent vfmadd231ps on 12 register
// accumulators (more than FMA latency x FMA ports, so the ports never wait
// on a result): AVX-512 (zmm) where the CPU has it, else AVX2 (ymm).
// Prints "RESULT peak_fma_f32_t<threads> peak <GFLOP/s> GFLOP/s": best of 7,
// each thread's FLOPs over its own CPU time, summed over the threads.
#include <immintrin.h>
#include <omp.h>

#include "bench_util.h"

namespace {

// A small multiplier: the accumulators stay normal numbers (no denormal stalls).
const float kTiny = 1e-3f;
constexpr int kAcc = 12;             // independent chains (> FMA latency 4 x 2 ports)
constexpr long kIters = 40'000'000;  // ~0.2 s a thread

// The chain in inline asm on zmm0-11 / ymm0-11 so the compiler can neither
// drop nor spill it; returns nothing (the FLOP count is exact by construction).
// R is the register prefix: "z" (AVX-512) or "y" (AVX2).
#define TC_MOV(R, i) "vmovaps %%" R "mm0, %%" R "mm" #i "\n"
#define TC_FMA(R, i) "vfmadd231ps %%" R "mm12, %%" R "mm12, %%" R "mm" #i "\n"
#define TC_FMA_CHAIN(R) \
  __asm__ volatile("vxorps %%xmm0, %%xmm0, %%xmm0\n"                                                         \
                   "vbroadcastss %[a], %%" R "mm12\n" TC_MOV(R, 1) TC_MOV(R, 2) TC_MOV(R, 3) TC_MOV(R, 4)     \
                       TC_MOV(R, 5) TC_MOV(R, 6) TC_MOV(R, 7) TC_MOV(R, 8) TC_MOV(R, 9) TC_MOV(R, 10)        \
                           TC_MOV(R, 11) "1:\n" TC_FMA(R, 0) TC_FMA(R, 1) TC_FMA(R, 2) TC_FMA(R, 3)          \
                               TC_FMA(R, 4) TC_FMA(R, 5) TC_FMA(R, 6) TC_FMA(R, 7) TC_FMA(R, 8) TC_FMA(R, 9) \
                                   TC_FMA(R, 10) TC_FMA(R, 11) "dec %[n]\n jnz 1b\n"                        \
                                                                  "vzeroupper\n"                            \
                   : [n] "+r"(iters)                                                                          \
                   : [a] "m"(kTiny)                                                                           \
                   : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",  \
                     "xmm11", "xmm12", "cc")

__attribute__((target("avx512f"))) void fma_chain_512(long iters) { TC_FMA_CHAIN("z"); }
__attribute__((target("avx2,fma"))) void fma_chain_256(long iters) { TC_FMA_CHAIN("y"); }

double thread_cpu_now() {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

}  // namespace

int main() {
  const bool zmm = __builtin_cpu_supports("avx512f");
  const int lanes = zmm ? 16 : 8;
  const double flops_per_thread = 2.0 * lanes * kAcc * double(kIters);
  for (int threads = 1; threads <= 2; ++threads) {
    double best_cpu = 0, best_wall = 0;
    for (int rep = 0; rep < 7; ++rep) {
      double rate_cpu = 0;  // the threads' own rates summed: what the cores do while running
      const double t0 = bench_now();
#pragma omp parallel num_threads(threads) reduction(+ : rate_cpu)
      {
        const double c0 = thread_cpu_now();
        if (zmm) {
          fma_chain_512(kIters);
        } else {
          fma_chain_256(kIters);
        }
        rate_cpu += flops_per_thread / (thread_cpu_now() - c0);
      }
      const double wall = flops_per_thread * threads / (bench_now() - t0);
      if (rate_cpu > best_cpu) best_cpu = rate_cpu;
      if (wall > best_wall) best_wall = wall;
    }
    // CPU time: the core's rate while it runs, unaffected by other processes
    // taking turns on a shared machine; wall: what this run got.
    char metric[64];
    snprintf(metric, sizeof metric, "peak_fma_f32_t%d", threads);
    bench_result(metric, "peak", best_cpu / 1e9, "GFLOP/s");
    fprintf(stderr, "bench_peak_flops: %d thread(s): %.1f GFLOP/s by thread CPU time, %.1f by wall clock\n",
            threads, best_cpu / 1e9, best_wall / 1e9);
  }
  fprintf(stderr, "bench_peak_flops: %s, %d accumulators\n", zmm ? "AVX-512 (zmm)" : "AVX2 (ymm)", kAcc);
  return 0;
}
