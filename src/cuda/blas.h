// Matrix products on CUDA through cuBLAS (src/cuda/blas.cpp), in the CUDA
// module; they read the core's matmul-precision setting (core/matmul_precision.h).
#pragma once
#include <cstdint>

#include "core/dtype.h"
#include "core/matmul_precision.h"

namespace tc {

namespace cuda {

// Row-major, batched: for i in [0, batch):
//   C_i = op(A_i) op(B_i) + beta * C_i,   X_i = X + i * stride_x (in elements)
// with op(A) m x k, op(B) k x n, C m x n (leading dim ldc). trans_a: A is
// stored k x m (lda >= m), else m x k (lda >= k); the same for B. dtype:
// float32 (compute as the precision setting allows: plain fp32, or TF32),
// float64, float16 and bfloat16 (fp32 accumulation). All pointers on CUDA
// device `device_index`. Every cuBLAS failure is TC_ERR_DEVICE naming the
// call and cuBLAS's status string.
void gemm(DType dtype, int32_t device_index, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
          const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb, int64_t stride_b,
          double beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch);

// Destroys every cuBLAS handle and workspace (the cuda stage's shutdown).
void blas_shutdown() noexcept;

}  // namespace cuda
}  // namespace tc
