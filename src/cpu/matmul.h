// Row-major GEMM for the CPU: C = alpha * op(A) * op(B) + beta * C.
// float32 goes to oneDNN's dnnl_sgemm (JIT kernels, transposes free); oneDNN
// has no float64 GEMM, so float64 uses a blocked OpenMP loop here.
#pragma once
#include <cstdint>

#include "tensor.h"

namespace tc::cpu {

// trans_a: A is stored K x M (lda >= M), else M x K (lda >= K); same for B.
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
          int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc);

// How a strided 2-D block (rows x cols, element strides rs, cs) can be handed
// to gemm without copying: as row-major (trans = false) or as the transpose
// of a row-major matrix (trans = true), with leading dimension ld. usable is
// false when neither works (then the caller copies).
struct MatLayout {
  bool usable = false;
  bool trans = false;
  int64_t ld = 0;
};
MatLayout mat_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs);

}  // namespace tc::cpu
