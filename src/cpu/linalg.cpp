// The CPU's GEMM primitives (src/backend/backend.h): matmul's batched products and
// linear, on cpu::gemm (oneDNN's sgemm; a blocked loop for float64).
#include <algorithm>
#include <vector>

#include "core/init.h"
#include "cpu/cpu_backend.h"
#include "cpu/kernels.h"
#include "cpu/loops.h"
#include "cpu/matmul.h"

namespace tc::cpu {

namespace {

// One GEMM per batch entry; operand offsets from the aligned batch strides.
template <typename T>
void cpu_batched_gemm(const T* pa, const T* pb, T* pc, const Dims& batch, const Dims& sa, const Dims& sb,
                      MatLayout la, MatLayout lb, int64_t m, int64_t n, int64_t k) {
  const int64_t nbatch = batch.size(), count = numel_of(batch);
  // Many small products: one GEMM per thread beats threads inside each one.
  const bool per_thread = count >= 2 && m * n * k < (1 << 18);
  sync_omp_threads();
  auto one = [&](int64_t i) {
    int64_t oa = 0, ob = 0;
    for (int64_t d = nbatch - 1, idx = i; d >= 0; --d) {
      const int64_t j = idx % batch[d];
      idx /= batch[d];
      oa += j * sa[d];
      ob += j * sb[d];
    }
    gemm(la.trans, lb.trans, m, n, k, T(1), pa + oa, la.ld, pb + ob, lb.ld, T(0), pc + i * m * n, n);
  };
  if (!per_thread) {
    // No enclosing parallel region, not even an inactive `if (false)` one:
    // oneDNN's own threads would then be a nested team, made anew per call.
    for (int64_t i = 0; i < count; ++i) one(i);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < count; ++i) one(i);
}

}  // namespace

void CpuBackend::batched_gemm(const Tensor& out, const Tensor& a, const Tensor& b, const Dims& batch,
                              const Dims& sa, const Dims& sb, MatLayout la, MatLayout lb, int64_t m,
                              int64_t n, int64_t k) const {
  TC_DISPATCH_FLOATING(a->dtype, "matmul", [&] {
    using T = scalar_t;
    cpu_batched_gemm<T>(a->data_as<T>(), b->data_as<T>(), out->data_as<T>(), batch, sa, sb, la, lb, m, n, k);
  });
}

void CpuBackend::linear(const Tensor& out, const Tensor& x2, const Tensor& weight, const Tensor& bias) const {
  const int64_t rows = x2->shape[0], in = x2->shape[1], outf = weight->shape[0];
  auto lx = mat_layout(rows, in, x2->strides[0], x2->strides[1]);
  // weight^T as the right operand: [in, out] with swapped strides.
  auto lw = mat_layout(in, outf, weight->strides[1], weight->strides[0]);
  Tensor w = weight;
  if (!lw.usable) {
    w = tc::contiguous(weight);
    lw = mat_layout(in, outf, w->strides[1], w->strides[0]);
  }
  TC_DISPATCH_FLOATING(x2->dtype, "linear", [&] {
    using T = scalar_t;
    T* o = out->data_as<T>();
    T beta = T(0);
    if (bias) {
      // Every row starts as the bias; GEMM then adds x @ W^T onto it. The
      // fill splits across threads like an elementwise op: on one thread it
      // was a serial stretch between the parallel GEMMs (a 1 MB write at
      // batch 1024 x 256 features). Each row is a plain copy: same bits at
      // any thread count.
      Tensor bc = tc::contiguous(bias);
      const T* pb = bc->data_as<T>();
      const int64_t row_grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(outf, 1));
      parallel_for(rows, row_grain, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) std::copy(pb, pb + outf, o + i * outf);
      });
      beta = T(1);
    }
    gemm(lx.trans, lw.trans, rows, outf, in, T(1), x2->data_as<T>(), lx.ld, w->data_as<T>(), lw.ld, beta, o,
         outf);
  });
}

// The loop is one of the hot kernels (src/cpu/reduce.cpp, compiled per
// instruction set): summing floats into doubles vectorizes 4x wider on AVX-512.
Tensor CpuBackend::column_sums(const Tensor& g2) const {
  Tensor gb = empty({g2->shape[1]}, g2->dtype);
  kernels().column_sums(gb, g2);
  return gb;
}

}  // namespace tc::cpu
