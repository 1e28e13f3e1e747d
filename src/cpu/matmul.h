// Row-major GEMM for the CPU: C = alpha * op(A) * op(B) + beta * C.
// float32 goes to oneDNN's dnnl_sgemm (JIT kernels, transposes free); oneDNN
// has no float64 GEMM, so float64 uses a blocked OpenMP loop here.
#pragma once
#include <cstdint>

#include "backend/backend.h"
#include "core/tensor.h"

namespace tc::cpu {

// trans_a: A is stored K x M (lda >= M), else M x K (lda >= K); same for B.
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
          int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc);

// The layout of a strided block as a GEMM operand (src/backend/backend.h).
using ::tc::mat_layout;
using ::tc::MatLayout;

}  // namespace tc::cpu
