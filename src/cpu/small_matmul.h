// Small float32 products on oneDNN's matmul primitive (its brgemm kernels),
// made once per operand layout and kept per thread. dnnl_sgemm plans its
// blocking and allocates packing buffers on every call, which at N = 64
// costs about 5% of the product; a kept primitive does not. gemm()
// (cpu/matmul.cpp) calls this for products it runs on one thread.
#pragma once
#include <cstdint>

namespace tc::cpu {

// C = op(A) * op(B) (alpha 1, beta 0; row-major, layouts as cpu::gemm's).
// False when no primitive serves this layout (yet): the caller uses sgemm.
bool small_matmul_f32(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
                      int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc);

}  // namespace tc::cpu
